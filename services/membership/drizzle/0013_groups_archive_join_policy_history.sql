CREATE TABLE "group_member_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"action" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "groups" ADD COLUMN "archived" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "groups" ADD COLUMN "join_policy" text DEFAULT 'closed' NOT NULL;--> statement-breakpoint
CREATE INDEX "group_member_history_church_at_idx" ON "group_member_history" USING btree ("church_id","at");--> statement-breakpoint
CREATE INDEX "group_member_history_group_idx" ON "group_member_history" USING btree ("church_id","group_id","at");--> statement-breakpoint
-- Memberships from before the history: each counts as a join on its join date.
INSERT INTO "group_member_history" ("id", "church_id", "group_id", "person_id", "action", "at")
SELECT gen_random_uuid(), "church_id", "group_id", "person_id", 'joined', "join_date" FROM "group_members";
