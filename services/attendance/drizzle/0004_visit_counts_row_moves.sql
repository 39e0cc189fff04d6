-- Added by hand: counts move on an update only when the update moves a visit (its church, service or date).
--
-- The statement-level update trigger of 0002 fired on every update of visits, and every check-in updates the
-- visits it keeps (their check-in time): it captured each updated row twice (transition tables) and ran an
-- upsert that wrote nothing. A row trigger limited to the key's columns (UPDATE OF, then a WHEN comparing
-- them, both evaluated without calling any function) is not even queued for such an update. Moves are rare
-- (a visit edited to another service or date), so one upsert per moved row is cheap enough. Its two rows go
-- in key order; a multi-row move takes its rows' counter rows in row order, so two concurrent multi-row moves
-- between the same keys through connections sharing a slot could deadlock (one of them fails), which the
-- rarity of moves makes acceptable. Inserts and deletes keep their statement triggers: a check-in adds or
-- drops a household at once, one upsert for all of them.
DROP TRIGGER visit_counts_update ON visits;--> statement-breakpoint
CREATE FUNCTION visit_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
  SELECT church_id, service_id, visit_date, pg_backend_pid() % 32, delta
    FROM (VALUES (OLD.church_id, OLD.service_id, OLD.visit_date, -1), (NEW.church_id, NEW.service_id, NEW.visit_date, 1)) d(church_id, service_id, visit_date, delta)
   ORDER BY church_id, service_id, visit_date
  ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER visit_counts_move AFTER UPDATE OF church_id, service_id, visit_date ON visits FOR EACH ROW
  WHEN (OLD.church_id IS DISTINCT FROM NEW.church_id OR OLD.service_id IS DISTINCT FROM NEW.service_id OR OLD.visit_date IS DISTINCT FROM NEW.visit_date)
  EXECUTE FUNCTION visit_counts_move();--> statement-breakpoint
-- visit_counts_apply now serves inserts and deletes only
CREATE OR REPLACE FUNCTION visit_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mine smallint := pg_backend_pid() % 32;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, count(*)
      FROM visit_counts_new GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  ELSE
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, -count(*)
      FROM visit_counts_old GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  END IF;
  RETURN NULL;
END
$$;
