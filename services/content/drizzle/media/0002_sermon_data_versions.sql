-- Public sermons are served from a kept answer per church and data version (snapshots.ts): every write to
-- sermons and playlists raises the church's version. `data_versions` is created by the website half's
-- migrations, which run first; the function is the shared one (dataVersionSql), replaced with the same body.
CREATE OR REPLACE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  church uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.church_id ELSE NEW.church_id END;
BEGIN
  INSERT INTO data_versions AS v (church_id, version) VALUES (church, 1)
  ON CONFLICT (church_id) DO UPDATE SET version = v.version + 1 WHERE v.xmin <> pg_current_xact_id()::xid;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER sermons_data_version AFTER INSERT OR UPDATE OR DELETE ON sermons
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER playlists_data_version AFTER INSERT OR UPDATE OR DELETE ON playlists
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
