CREATE TABLE "campaign_gift_totals" (
	"church_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"slot" smallint DEFAULT 0 NOT NULL,
	"given" numeric(14, 2) NOT NULL,
	"gift_count" integer NOT NULL,
	CONSTRAINT "campaign_gift_totals_church_id_campaign_id_person_id_slot_pk" PRIMARY KEY("church_id","campaign_id","person_id","slot")
);

--> statement-breakpoint
-- Added by hand: the triggers that keep campaign_gift_totals and the fill of existing campaigns.
--
-- campaign_gift_totals holds, per (church, campaign, person), the sum and count of the allocations counted for
-- the campaign (fund_donations of its fund whose gift_day, set while the donation is complete, is within its
-- days), summed over its slots; gifts without a person are kept under the nil UUID. It is this join, kept:
--   select c.church_id, c.id, coalesce(fd.person_id, '00000000-0000-0000-0000-000000000000'), sum(fd.amount), count(*)
--     from campaigns c join fund_donations fd on fd.church_id = c.church_id and fd.fund_id = c.fund_id
--      and fd.gift_day between c.start_date and coalesce(c.end_date, 'infinity') group by 1, 2, 3
-- Every change that moves it reaches fund_donations (a donation's status, date or person is carried to its
-- allocations' gift_day and person_id by the triggers of 0003 and 0005), so two triggers keep it, in the
-- writer's transaction:
--  - fund_donations insert / update / delete (statement-level, transition tables): one delta per (church, fund,
--    person, day) of the counted allocations, added to every campaign of that fund whose days hold the day, in
--    key order.
--  - campaigns insert / update of its fund or days / delete (row-level: campaigns are few): its rows are
--    dropped and summed again from the fund's allocations (one range of fund_donations_church_fund_day_idx).
-- A campaign written while gifts to its fund are being written must miss none and count none twice: an allocation
-- writer takes a shared transaction lock per (church, fund) it touches before it reads the campaigns, a campaign
-- write an exclusive one on its fund (old and new) before it sums. So the sum waits for the writers in flight
-- (and then sees their allocations), and a writer that comes later waits for the campaign to commit (and then
-- adds to it). Rows that fall to zero stay (count 0); readers leave them out.
ALTER TABLE "campaign_gift_totals" DROP CONSTRAINT "campaign_gift_totals_church_id_campaign_id_person_id_slot_pk";
--> statement-breakpoint
ALTER TABLE "campaign_gift_totals" ADD CONSTRAINT "campaign_gift_totals_church_id_campaign_id_person_id_slot_pk" PRIMARY KEY ("church_id", "campaign_id", "person_id", "slot") INCLUDE ("given", "gift_count");
--> statement-breakpoint
-- The lock of a (church, fund): allocation writers share it, a campaign of the fund being written holds it alone.
CREATE FUNCTION campaign_gift_lock(p_church uuid, p_fund uuid) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT hashtextextended('campaign_gift:' || p_church::text || ':' || p_fund::text, 0)
$$;
--> statement-breakpoint
-- Slots as fund_day_totals_add (0002): the first slot row no other transaction holds, else the next slot.
CREATE FUNCTION campaign_gift_totals_add(p_church uuid, p_campaign uuid, p_person uuid, p_amount numeric, p_count integer) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  free smallint;
BEGIN
  SELECT slot INTO free FROM campaign_gift_totals
   WHERE church_id = p_church AND campaign_id = p_campaign AND person_id = p_person
   ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED;
  IF FOUND THEN
    UPDATE campaign_gift_totals SET given = given + p_amount, gift_count = gift_count + p_count
     WHERE church_id = p_church AND campaign_id = p_campaign AND person_id = p_person AND slot = free;
  ELSE
    INSERT INTO campaign_gift_totals AS t (church_id, campaign_id, person_id, slot, given, gift_count)
    SELECT p_church, p_campaign, p_person, CASE WHEN n < 16 THEN n ELSE floor(random() * 16)::smallint END, p_amount, p_count
      FROM (SELECT coalesce(max(slot) + 1, 0)::smallint AS n FROM campaign_gift_totals
             WHERE church_id = p_church AND campaign_id = p_campaign AND person_id = p_person) s
    ON CONFLICT (church_id, campaign_id, person_id, slot) DO UPDATE
      SET given = t.given + excluded.given, gift_count = t.gift_count + excluded.gift_count;
  END IF;
END
$$;
--> statement-breakpoint
-- Adds deltas of counted allocations (church, fund, person or null, gift day, amount, count) to the campaigns holding them.
CREATE FUNCTION campaign_gift_totals_apply(p_churches uuid[], p_funds uuid[], p_people uuid[], p_days date[], p_amounts numeric[], p_counts integer[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF coalesce(cardinality(p_churches), 0) = 0 THEN
    RETURN;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(campaign_gift_lock(church_id, fund_id))
     FROM (SELECT DISTINCT church_id, fund_id FROM unnest(p_churches, p_funds) k(church_id, fund_id) ORDER BY 1, 2) k;
  PERFORM campaign_gift_totals_add(church_id, campaign_id, person_id, amount, gifts)
     FROM (SELECT c.church_id, c.id AS campaign_id, coalesce(d.person_id, '00000000-0000-0000-0000-000000000000'::uuid) AS person_id,
                  sum(d.amount) AS amount, sum(d.gifts)::int AS gifts
             FROM unnest(p_churches, p_funds, p_people, p_days, p_amounts, p_counts) d(church_id, fund_id, person_id, day, amount, gifts)
             JOIN campaigns c ON c.church_id = d.church_id AND c.fund_id = d.fund_id
                             AND d.day >= c.start_date AND d.day <= coalesce(c.end_date, 'infinity'::date)
            GROUP BY 1, 2, 3 HAVING sum(d.amount) <> 0 OR sum(d.gifts) <> 0 ORDER BY 1, 2, 3) k;
END
$$;
--> statement-breakpoint
CREATE FUNCTION campaign_gift_totals_from_allocations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(church_id) AS churches, array_agg(fund_id) AS funds, array_agg(person_id) AS people, array_agg(gift_day) AS days,
           array_agg(amount) AS amounts, array_agg(gifts) AS counts INTO d
      FROM (SELECT church_id, fund_id, person_id, gift_day, sum(amount) AS amount, count(*)::int AS gifts
              FROM cgt_new_allocations WHERE gift_day IS NOT NULL GROUP BY 1, 2, 3, 4) k;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(church_id) AS churches, array_agg(fund_id) AS funds, array_agg(person_id) AS people, array_agg(gift_day) AS days,
           array_agg(amount) AS amounts, array_agg(gifts) AS counts INTO d
      FROM (SELECT church_id, fund_id, person_id, gift_day, -sum(amount) AS amount, -count(*)::int AS gifts
              FROM cgt_old_allocations WHERE gift_day IS NOT NULL GROUP BY 1, 2, 3, 4) k;
  ELSE
    SELECT array_agg(church_id) AS churches, array_agg(fund_id) AS funds, array_agg(person_id) AS people, array_agg(gift_day) AS days,
           array_agg(amount) AS amounts, array_agg(gifts) AS counts INTO d
      FROM (SELECT church_id, fund_id, person_id, gift_day, sum(amount) AS amount, sum(gifts)::int AS gifts
              FROM (SELECT church_id, fund_id, person_id, gift_day, amount, 1 AS gifts FROM cgt_new_allocations WHERE gift_day IS NOT NULL
                    UNION ALL
                    SELECT church_id, fund_id, person_id, gift_day, -amount, -1 FROM cgt_old_allocations WHERE gift_day IS NOT NULL) a
             GROUP BY 1, 2, 3, 4 HAVING sum(amount) <> 0 OR sum(gifts) <> 0) k;
  END IF;
  PERFORM campaign_gift_totals_apply(d.churches, d.funds, d.people, d.days, d.amounts, d.counts);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER campaign_gift_totals_allocations_insert AFTER INSERT ON fund_donations REFERENCING NEW TABLE AS cgt_new_allocations
  FOR EACH STATEMENT EXECUTE FUNCTION campaign_gift_totals_from_allocations();
--> statement-breakpoint
CREATE TRIGGER campaign_gift_totals_allocations_update AFTER UPDATE ON fund_donations REFERENCING OLD TABLE AS cgt_old_allocations NEW TABLE AS cgt_new_allocations
  FOR EACH STATEMENT EXECUTE FUNCTION campaign_gift_totals_from_allocations();
--> statement-breakpoint
CREATE TRIGGER campaign_gift_totals_allocations_delete AFTER DELETE ON fund_donations REFERENCING OLD TABLE AS cgt_old_allocations
  FOR EACH STATEMENT EXECUTE FUNCTION campaign_gift_totals_from_allocations();
--> statement-breakpoint
-- A campaign's rows summed from scratch (a new campaign, or one whose fund or days changed).
CREATE FUNCTION campaign_gift_totals_fill(p_church uuid, p_campaign uuid, p_fund uuid, p_start date, p_end date) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO campaign_gift_totals (church_id, campaign_id, person_id, slot, given, gift_count)
  SELECT p_church, p_campaign, coalesce(fd.person_id, '00000000-0000-0000-0000-000000000000'::uuid), 0, sum(fd.amount), count(*)
    FROM fund_donations fd
   WHERE fd.church_id = p_church AND fd.fund_id = p_fund AND fd.gift_day IS NOT NULL
     AND fd.gift_day >= p_start AND fd.gift_day <= coalesce(p_end, 'infinity'::date)
   GROUP BY 3
$$;
--> statement-breakpoint
CREATE FUNCTION campaign_gift_totals_from_campaigns() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.church_id = OLD.church_id AND NEW.fund_id = OLD.fund_id AND NEW.start_date = OLD.start_date
     AND NEW.end_date IS NOT DISTINCT FROM OLD.end_date THEN
    RETURN NULL;
  END IF;
  -- the fund's writers in flight commit first; later ones wait for this transaction (old and new fund, in order)
  PERFORM pg_advisory_xact_lock(k)
     FROM (SELECT DISTINCT k FROM unnest(ARRAY[CASE WHEN TG_OP <> 'DELETE' THEN campaign_gift_lock(NEW.church_id, NEW.fund_id) END,
                                               CASE WHEN TG_OP <> 'INSERT' THEN campaign_gift_lock(OLD.church_id, OLD.fund_id) END]) k
            WHERE k IS NOT NULL ORDER BY k) l;
  IF TG_OP <> 'INSERT' THEN
    DELETE FROM campaign_gift_totals WHERE church_id = OLD.church_id AND campaign_id = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM campaign_gift_totals_fill(NEW.church_id, NEW.id, NEW.fund_id, NEW.start_date, NEW.end_date);
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER campaign_gift_totals_campaigns AFTER INSERT OR UPDATE OR DELETE ON campaigns
  FOR EACH ROW EXECUTE FUNCTION campaign_gift_totals_from_campaigns();
--> statement-breakpoint
-- Existing campaigns. The triggers created above hold a lock on both tables until this migration commits, so a
-- concurrent writer either committed before this sum or fires the triggers after it.
INSERT INTO campaign_gift_totals (church_id, campaign_id, person_id, slot, given, gift_count)
SELECT c.church_id, c.id, coalesce(fd.person_id, '00000000-0000-0000-0000-000000000000'::uuid), 0, sum(fd.amount), count(*)
  FROM campaigns c JOIN fund_donations fd ON fd.church_id = c.church_id AND fd.fund_id = c.fund_id AND fd.gift_day IS NOT NULL
   AND fd.gift_day >= c.start_date AND fd.gift_day <= coalesce(c.end_date, 'infinity'::date)
 GROUP BY 1, 2, 3;
