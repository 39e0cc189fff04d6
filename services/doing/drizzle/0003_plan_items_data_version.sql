-- A plan's service order (GET /planItems/plan/:planId, the presenter's copy) is kept per church and data
-- version: every write to plan_items raises it (the shared trigger of packages/common, dataVersionSql).
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
CREATE CONSTRAINT TRIGGER plan_items_data_version AFTER INSERT OR UPDATE OR DELETE ON plan_items
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
