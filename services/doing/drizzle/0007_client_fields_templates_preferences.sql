CREATE TABLE "plan_item_times" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"plan_item_id" uuid NOT NULL,
	"time_id" uuid NOT NULL,
	"excluded" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"ministry_id" uuid,
	"name" text NOT NULL,
	"data" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "scheduling_preferences" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"max_per_month" integer,
	"preferred_times" text,
	"household_scheduling" text DEFAULT 'none' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "assignments" ADD COLUMN "autofill_run_id" uuid;--> statement-breakpoint
ALTER TABLE "plan_items" ADD COLUMN "provider_content_path" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "campus_id" uuid;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "provider_id" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "provider_plan_id" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "provider_plan_name" text;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "signup_deadline_hours" integer;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "show_volunteer_names" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "prepared" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "auto_replace_on_decline" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "last_autofill_run_id" uuid;--> statement-breakpoint
ALTER TABLE "times" ADD COLUMN "service_time_type" text DEFAULT 'service' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "plan_item_times_church_item_time_idx" ON "plan_item_times" USING btree ("church_id","plan_item_id","time_id");--> statement-breakpoint
CREATE INDEX "plan_item_times_church_plan_idx" ON "plan_item_times" USING btree ("church_id","plan_id");--> statement-breakpoint
CREATE INDEX "plan_templates_church_ministry_idx" ON "plan_templates" USING btree ("church_id","ministry_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "scheduling_preferences_church_person_idx" ON "scheduling_preferences" USING btree ("church_id","person_id");