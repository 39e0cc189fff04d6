ALTER TABLE "visit_counts" DROP CONSTRAINT "visit_counts_uq";--> statement-breakpoint
ALTER TABLE "visit_counts" ADD COLUMN "slot" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "visit_counts" ADD CONSTRAINT "visit_counts_uq" UNIQUE NULLS NOT DISTINCT("church_id","service_id","visit_date","slot");--> statement-breakpoint
-- Added by hand: the triggers of 0002 add to the writer's own slot of the key.
--
-- One row per key made every check-in that adds visits at a service on a day wait, from its upsert of the
-- counter row, for the previous one's commit (a WAL flush): twenty kiosks of one Sunday service queued on one
-- row (measured: 15 to 17 of 20 concurrent check-in statements waiting on that row's lock). Now each database
-- connection adds to the slot of its backend's process id modulo 32: a connection never waits for itself, and
-- two connections wait for each other only when their ids share a slot. A key has at most as many rows as
-- connections ever wrote to it (at most 32); readers already sum (the trend, reporting's attendance trend).
-- Deltas may land in another slot than the visits they undo (an insert through one connection, the delete
-- through another): a slot may go negative, the key's sum stays exact.
CREATE OR REPLACE FUNCTION visit_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mine smallint := pg_backend_pid() % 32;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, count(*)
      FROM visit_counts_new GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, -count(*)
      FROM visit_counts_old GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  ELSE
    -- an update moves counts only when it changes a visit's church, service or date; a check-in that keeps
    -- a visit only touches its check-in time, and nothing is written
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, sum(delta)
      FROM (SELECT church_id, service_id, visit_date, 1 AS delta FROM visit_counts_new
            UNION ALL
            SELECT church_id, service_id, visit_date, -1 FROM visit_counts_old) d
     GROUP BY church_id, service_id, visit_date HAVING sum(delta) <> 0 ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  END IF;
  RETURN NULL;
END
$$;
