-- Added by hand: an insert or delete of visits that writes no row adds nothing to the counts, and returns at once.
--
-- A statement trigger fires even when its statement writes no row, and the check-in statement always holds its
-- insert of visits (it cannot know before it runs whether someone is new): re-checking a household whose visits
-- of the day are all kept inserts nothing, yet ran the upsert below over an empty transition table (the
-- upsert's executor start, the counter index opened, an empty aggregate). Now the function looks at the
-- transition table first. Measured on the check-in statement of a household whose visits are all kept
-- (one connection, 1,500 executions, backend CPU): 1.60 and 1.73 ms per statement before, 1.57 and 1.56 after.
CREATE OR REPLACE FUNCTION visit_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  mine smallint := pg_backend_pid() % 32;
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NOT EXISTS (SELECT FROM visit_counts_new) THEN
      RETURN NULL;
    END IF;
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, count(*)
      FROM visit_counts_new GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  ELSE
    IF NOT EXISTS (SELECT FROM visit_counts_old) THEN
      RETURN NULL;
    END IF;
    INSERT INTO visit_counts AS c (church_id, service_id, visit_date, slot, visits)
    SELECT church_id, service_id, visit_date, mine, -count(*)
      FROM visit_counts_old GROUP BY church_id, service_id, visit_date ORDER BY church_id, service_id, visit_date
    ON CONFLICT (church_id, service_id, visit_date, slot) DO UPDATE SET visits = c.visits + excluded.visits;
  END IF;
  RETURN NULL;
END
$$;
