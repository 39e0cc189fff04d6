CREATE TABLE "data_versions" (
	"church_id" uuid PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);

--> statement-breakpoint
-- Added by hand (the shared trigger of @church/common, `dataVersionSql`): the church's data version, raised once
-- per writing transaction at its commit (a deferred constraint trigger), on every table the kept campaign answers
-- read: `GET /campaigns/:id/progress` and `GET /campaigns/progress/people` read campaigns, pledges and
-- campaign_gift_totals, nothing else. A gift reaches them through campaign_gift_totals: every change of a
-- donation or an allocation that moves what a campaign counts is written there in the writer's transaction
-- (0007's triggers), so donations and fund_donations need no trigger of their own, and a gift outside every
-- campaign's fund and days raises nothing. A campaign's edit, which sums its rows again, raises it by its own row.
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
CREATE CONSTRAINT TRIGGER campaigns_data_version AFTER INSERT OR UPDATE OR DELETE ON campaigns
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER pledges_data_version AFTER INSERT OR UPDATE OR DELETE ON pledges
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
--> statement-breakpoint
CREATE CONSTRAINT TRIGGER campaign_gift_totals_data_version AFTER INSERT OR UPDATE OR DELETE ON campaign_gift_totals
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
