-- Autofill's even spread counts each candidate's assignments on the plans within 90 days either side of the
-- service date: about 180 plans of up to 40 assignments each for a church that plans every day. Read from
-- assignments, that is one index probe per plan and a heap visit per assignment whose page is not yet marked
-- all-visible (every recent one, on a busy table): 2.6 ms of the statement's 4.6 in EXPLAIN ANALYZE on the
-- bench. Each plan now carries the people of its assignments (one entry per assignment, any status), kept by
-- the triggers below in the statement that changes them, so the count reads the window's plan rows alone
-- (1.2 ms in the same measurement). Not part of the API: the column is not in the drizzle schema, and no route
-- answers it.
ALTER TABLE "plans" ADD COLUMN "assignees" uuid[] NOT NULL DEFAULT '{}';
--> statement-breakpoint
CREATE FUNCTION plans_assignees_of(changed_church uuid[], changed_plan uuid[]) RETURNS void LANGUAGE sql AS $$
  UPDATE plans p
     SET assignees = array(SELECT a.person_id FROM assignments a WHERE a.church_id = p.church_id AND a.plan_id = p.id ORDER BY a.person_id)
    FROM (SELECT DISTINCT c, id FROM unnest(changed_church, changed_plan) AS t(c, id)) t
   WHERE p.church_id = t.c AND p.id = t.id
$$;
--> statement-breakpoint
-- One function per event: a statement may name only the transition tables its trigger declares.
CREATE FUNCTION plans_assignees_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM plans_assignees_of(array(SELECT church_id FROM added), array(SELECT plan_id FROM added));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION plans_assignees_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM plans_assignees_of(array(SELECT church_id FROM removed), array(SELECT plan_id FROM removed));
  RETURN NULL;
END $$;
--> statement-breakpoint
-- An update changes a plan's people only when it moves an assignment to another plan or person (accepting and
-- declining do not): then the plans before and after the move.
CREATE FUNCTION plans_assignees_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  churches uuid[];
  plan_ids uuid[];
BEGIN
  SELECT array_agg(x.c), array_agg(x.p) INTO churches, plan_ids
    FROM before_rows o JOIN after_rows n ON n.id = o.id
   CROSS JOIN LATERAL (VALUES (o.church_id, o.plan_id), (n.church_id, n.plan_id)) x(c, p)
   WHERE o.plan_id <> n.plan_id OR o.person_id <> n.person_id OR o.church_id <> n.church_id;
  IF churches IS NOT NULL THEN
    PERFORM plans_assignees_of(churches, plan_ids);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER assignments_plans_added AFTER INSERT ON assignments
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION plans_assignees_added();
--> statement-breakpoint
CREATE TRIGGER assignments_plans_removed AFTER DELETE ON assignments
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION plans_assignees_removed();
--> statement-breakpoint
CREATE TRIGGER assignments_plans_moved AFTER UPDATE ON assignments
  REFERENCING OLD TABLE AS before_rows NEW TABLE AS after_rows FOR EACH STATEMENT EXECUTE FUNCTION plans_assignees_moved();
--> statement-breakpoint
UPDATE plans p
   SET assignees = array(SELECT a.person_id FROM assignments a WHERE a.church_id = p.church_id AND a.plan_id = p.id ORDER BY a.person_id)
 WHERE EXISTS (SELECT FROM assignments a WHERE a.church_id = p.church_id AND a.plan_id = p.id);
