-- Generated, then edited by hand: the INCLUDE columns of three indexes (drizzle's schema cannot say them), the
-- backfill of fund_donations.gift_day and the triggers that keep it, and the person index rebuilt with it.
--
-- Campaigns and their pledges. What a campaign has raised is the complete gifts to its fund whose UTC day is
-- within its days (the days fund_day_totals counts them on). Read through the donations, a year's campaign on a
-- busy fund was a join of every allocation of the fund with every donation of the year (about 90 ms a campaign
-- on the bench church); with the day on the allocation it is one range of fund_donations_church_fund_day_idx,
-- read from the index alone with the person and amount (about 2 ms for a year's 18,000 gifts to the general
-- fund): the total, the donors and each person's given amount in one pass.
CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"fund_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"goal_amount" numeric(12, 2),
	"start_date" date NOT NULL,
	"end_date" date,
	"show_public" boolean DEFAULT false NOT NULL,
	"allow_self_pledge" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pledges" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"amount" numeric(12, 2) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "campaigns_church_start_idx" ON "campaigns" USING btree ("church_id","start_date","name");--> statement-breakpoint
CREATE UNIQUE INDEX "pledges_church_campaign_person_idx" ON "pledges" USING btree ("church_id","campaign_id","person_id") INCLUDE ("amount");--> statement-breakpoint
CREATE INDEX "pledges_church_person_idx" ON "pledges" USING btree ("church_id","person_id");--> statement-breakpoint
ALTER TABLE "fund_donations" ADD COLUMN "gift_day" date;--> statement-breakpoint
--
-- fund_donations.gift_day is (its donation's donation_date AT TIME ZONE 'UTC')::date while that donation is
-- 'complete', null otherwise (pending, failed, refunded, or no donation): exactly the allocations and days
-- fund_day_totals sums. Every write path keeps it, in the writer's transaction:
--  - fund_donations insert: writers that know it write it (the donation and its allocations in one statement: the
--    webhook job and the charge); the rest are filled in once per statement, after it, from their donations
--    (statement-level, so a bulk load without indexes is one join, not a lookup per row).
--  - fund_donations move to another donation: the new donation's day (row-level, like person_id's).
--  - donations update: a donation whose status or date changes carries its new day (or null) to its allocations;
--    any other update (a refund amount, a note, a person) reads nothing.
--  - donations delete: its allocations still there count no more (the routes delete them right after).
-- These updates fire fund_day_totals' allocation trigger, which finds no delta (amount, fund and donation stay).
CREATE FUNCTION fund_donations_gift_day_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE fund_donations fd SET gift_day = (d.donation_date AT TIME ZONE 'UTC')::date
    FROM fdg_new_allocations n JOIN donations d ON d.church_id = n.church_id AND d.id = n.donation_id
   WHERE n.gift_day IS NULL AND d.status = 'complete' AND fd.id = n.id AND fd.church_id = n.church_id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER fund_donations_gift_day_insert AFTER INSERT ON fund_donations REFERENCING NEW TABLE AS fdg_new_allocations
  FOR EACH STATEMENT EXECUTE FUNCTION fund_donations_gift_day_insert();--> statement-breakpoint
CREATE FUNCTION fund_donations_gift_day_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.gift_day := (SELECT (d.donation_date AT TIME ZONE 'UTC')::date FROM donations d
                    WHERE d.church_id = NEW.church_id AND d.id = NEW.donation_id AND d.status = 'complete');
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER fund_donations_gift_day_move BEFORE UPDATE OF donation_id ON fund_donations
  FOR EACH ROW WHEN (NEW.donation_id IS DISTINCT FROM OLD.donation_id) EXECUTE FUNCTION fund_donations_gift_day_move();--> statement-breakpoint
CREATE FUNCTION fund_donations_gift_day_from_donations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE fund_donations fd SET gift_day = NULL
      FROM fdg_old_donations o
     WHERE fd.church_id = o.church_id AND fd.donation_id = o.id AND fd.gift_day IS NOT NULL;
  ELSE
    UPDATE fund_donations fd SET gift_day = c.day
      FROM (SELECT n.church_id, n.id, CASE WHEN n.status = 'complete' THEN (n.donation_date AT TIME ZONE 'UTC')::date END AS day
              FROM fdg_new_donations n JOIN fdg_old_donations o ON o.id = n.id
             WHERE n.status IS DISTINCT FROM o.status OR n.donation_date IS DISTINCT FROM o.donation_date) c
     WHERE fd.church_id = c.church_id AND fd.donation_id = c.id AND fd.gift_day IS DISTINCT FROM c.day;
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER fund_donations_gift_day_donations_update AFTER UPDATE ON donations REFERENCING OLD TABLE AS fdg_old_donations NEW TABLE AS fdg_new_donations
  FOR EACH STATEMENT EXECUTE FUNCTION fund_donations_gift_day_from_donations();--> statement-breakpoint
CREATE TRIGGER fund_donations_gift_day_donations_delete AFTER DELETE ON donations REFERENCING OLD TABLE AS fdg_old_donations
  FOR EACH STATEMENT EXECUTE FUNCTION fund_donations_gift_day_from_donations();--> statement-breakpoint
-- Existing allocations. The backfill changes no amount: the kept daily totals' trigger would only lock every
-- donation to find no delta. The column's ALTER holds fund_donations exclusively until this migration commits,
-- so no writer runs between the triggers and this update.
ALTER TABLE "fund_donations" DISABLE TRIGGER "fund_day_totals_allocations_update";--> statement-breakpoint
UPDATE "fund_donations" fd SET "gift_day" = (d."donation_date" AT TIME ZONE 'UTC')::date FROM "donations" d
 WHERE d."church_id" = fd."church_id" AND d."id" = fd."donation_id" AND d."status" = 'complete';--> statement-breakpoint
ALTER TABLE "fund_donations" ENABLE TRIGGER "fund_day_totals_allocations_update";--> statement-breakpoint
CREATE INDEX "fund_donations_church_fund_day_idx" ON "fund_donations" USING btree ("church_id","fund_id","gift_day") INCLUDE ("person_id", "amount") WHERE gift_day is not null;--> statement-breakpoint
-- A person's allocations with their gift day: a member's pledges read what they gave from the index alone.
DROP INDEX "fund_donations_church_person_idx";--> statement-breakpoint
CREATE INDEX "fund_donations_church_person_idx" ON "fund_donations" USING btree ("church_id","person_id","donation_id") INCLUDE ("id", "fund_id", "amount", "gift_day") WHERE person_id is not null;
