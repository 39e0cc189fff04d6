-- A plan has a bounded number of assignments (one per slot of its positions), so the number of distinct plan_ids
-- grows with the table. ANALYZE stores it as a fixed count when it is under 10% of the rows, and between two
-- analyzes every new plan's assignments are taken for more rows of the plans already counted: a table that grew
-- 5× since (a church that schedules a season at once; the bench, whose runs add tens of thousands of
-- assignments with autovacuum off) had ~700 rows a plan estimated for its ~40. Autofill's per-plan reads were
-- then costed as large: sequential scans of every assignment, and JIT compilation of the autofill statement
-- (tens of milliseconds each). A negative n_distinct is a share of the rows: about 20 assignments a plan, at any
-- size.
ALTER TABLE "assignments" ALTER COLUMN "plan_id" SET (n_distinct = -0.05);
--> statement-breakpoint
ANALYZE "assignments";
