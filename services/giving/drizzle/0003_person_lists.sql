-- Generated, then edited by hand: the INCLUDE columns of the new indexes (drizzle's schema cannot say them),
-- the backfill of fund_donations.person_id, and the triggers that keep it.
--
-- A person's donations (GET /giving/donations?personId=, /my) were read through the person index, then a heap
-- page per gift (gifts are inserted week by week, so a person's fifty sit on fifty pages), then an allocation
-- lookup per gift (another index page and heap page each): about 330 buffers per answer, most of them cold when
-- each request asks for a different person. Now both reads are index-only scans of one or two leaf pages:
--  - donations_church_person_list_idx carries every column the list answers. A btree entry must stay under
--    2,704 bytes, so it holds only donations whose text fits (SHORT_DONATION in schema.ts, repeated word for
--    word below); the others (long notes) are found through donations_church_person_long_idx and their rows.
--  - fund_donations_church_person_idx finds a person's allocations together, by the donation's person kept on
--    the allocation (person_id).
ALTER TABLE "fund_donations" ADD COLUMN "person_id" uuid;--> statement-breakpoint
-- The backfill changes no amount: the kept daily totals' trigger would only lock every donation to find no delta.
ALTER TABLE "fund_donations" DISABLE TRIGGER "fund_day_totals_allocations_update";--> statement-breakpoint
UPDATE "fund_donations" fd SET "person_id" = d."person_id" FROM "donations" d
 WHERE d."church_id" = fd."church_id" AND d."id" = fd."donation_id" AND d."person_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "fund_donations" ENABLE TRIGGER "fund_day_totals_allocations_update";--> statement-breakpoint
--
-- fund_donations.person_id is its donation's person_id. Writers that know it (the donation and its allocations
-- in one statement) write it; one left null is filled in from the donation (a row written before its donation
-- stays null, as it is not counted in the daily totals either). An allocation moved to another donation takes
-- that donation's person, and a donation's change of person is carried to its allocations.
CREATE FUNCTION fund_donations_person() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.person_id := (SELECT d.person_id FROM donations d WHERE d.church_id = NEW.church_id AND d.id = NEW.donation_id);
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER fund_donations_person_insert BEFORE INSERT ON fund_donations
  FOR EACH ROW WHEN (NEW.person_id IS NULL) EXECUTE FUNCTION fund_donations_person();--> statement-breakpoint
CREATE TRIGGER fund_donations_person_move BEFORE UPDATE OF donation_id ON fund_donations
  FOR EACH ROW WHEN (NEW.donation_id IS DISTINCT FROM OLD.donation_id) EXECUTE FUNCTION fund_donations_person();--> statement-breakpoint
CREATE FUNCTION fund_donations_person_from_donations() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE fund_donations fd SET person_id = n.person_id
    FROM fdp_new_donations n JOIN fdp_old_donations o ON o.id = n.id
   WHERE n.person_id IS DISTINCT FROM o.person_id
     AND fd.church_id = n.church_id AND fd.donation_id = n.id AND fd.person_id IS DISTINCT FROM n.person_id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER fund_donations_person_donations_update AFTER UPDATE ON donations REFERENCING OLD TABLE AS fdp_old_donations NEW TABLE AS fdp_new_donations
  FOR EACH STATEMENT EXECUTE FUNCTION fund_donations_person_from_donations();--> statement-breakpoint
DROP INDEX "donations_church_person_date_idx";--> statement-breakpoint
CREATE INDEX "donations_church_person_list_idx" ON "donations" USING btree ("church_id","person_id","donation_date")
  INCLUDE ("id", "batch_id", "amount", "currency", "method", "method_details", "notes", "status", "transaction_id", "provider", "fee", "refunded_amount", "subscription_id")
  WHERE person_id is not null and coalesce(octet_length(method), 0) + coalesce(octet_length(method_details), 0) + coalesce(octet_length(notes), 0) + coalesce(octet_length(transaction_id), 0) + coalesce(octet_length(provider), 0) + octet_length(currency) + octet_length(status) <= 2000;--> statement-breakpoint
CREATE INDEX "donations_church_person_long_idx" ON "donations" USING btree ("church_id","person_id","donation_date") WHERE person_id is not null and not (coalesce(octet_length(method), 0) + coalesce(octet_length(method_details), 0) + coalesce(octet_length(notes), 0) + coalesce(octet_length(transaction_id), 0) + coalesce(octet_length(provider), 0) + octet_length(currency) + octet_length(status) <= 2000);--> statement-breakpoint
CREATE INDEX "fund_donations_church_person_idx" ON "fund_donations" USING btree ("church_id","person_id","donation_id") INCLUDE ("id", "fund_id", "amount") WHERE person_id is not null;
