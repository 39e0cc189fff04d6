-- One raise per church per transaction, not one per changed row: a batch save or an import of 10,000 people
-- rewrote the version row 10,000 times at commit. The row this transaction already wrote (xmin is its own id)
-- is left as it is; ON CONFLICT still locks it, so the version is written exactly once before commit.
CREATE OR REPLACE FUNCTION bump_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  church uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.church_id ELSE NEW.church_id END;
BEGIN
  INSERT INTO data_versions AS v (church_id, version) VALUES (church, 1)
  ON CONFLICT (church_id) DO UPDATE SET version = v.version + 1 WHERE v.xmin <> pg_current_xact_id()::xid;
  RETURN NULL;
END
$$;
