-- The public blog list is served from a kept answer per church and data version too (snapshots.ts): writes to
-- posts raise it, through the shared bump_data_version() that 0002 created (dataVersionSql).
CREATE CONSTRAINT TRIGGER posts_data_version AFTER INSERT OR UPDATE OR DELETE ON posts
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
