CREATE TABLE "actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"action_type" text NOT NULL,
	"action_data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "assignments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"position_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"status" text DEFAULT 'Unconfirmed' NOT NULL,
	"notified" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automation_runs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"period" text NOT NULL,
	"task_ids" jsonb,
	"ran_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "automations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"title" text NOT NULL,
	"recurs" text DEFAULT 'none' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "blockout_dates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"start_date" date NOT NULL,
	"end_date" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conditions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"conjunction_id" uuid,
	"field" text NOT NULL,
	"field_data" text,
	"operator" text DEFAULT '=' NOT NULL,
	"value" text,
	"label" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "conjunctions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"automation_id" uuid NOT NULL,
	"parent_id" uuid,
	"group_type" text DEFAULT 'and' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "content_provider_auths" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"ministry_id" uuid NOT NULL,
	"provider_id" text NOT NULL,
	"access_token" text,
	"refresh_token" text,
	"token_type" text,
	"expires_at" timestamp with time zone,
	"scopes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_items" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"parent_id" uuid,
	"sort" real DEFAULT 0 NOT NULL,
	"item_type" text,
	"related_id" text,
	"label" text,
	"description" text,
	"seconds" integer,
	"link" text,
	"provider_id" text,
	"provider_path" text,
	"thumbnail_url" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plan_types" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"ministry_id" uuid,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"ministry_id" uuid,
	"plan_type_id" uuid,
	"name" text,
	"service_date" date,
	"notes" text,
	"service_order" boolean DEFAULT false NOT NULL,
	"content_type" text,
	"content_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "positions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"category_name" text,
	"name" text NOT NULL,
	"count" integer DEFAULT 1 NOT NULL,
	"group_id" uuid,
	"allow_self_signup" boolean DEFAULT false NOT NULL,
	"description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "task_counters" (
	"church_id" uuid PRIMARY KEY NOT NULL,
	"last" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"task_number" integer NOT NULL,
	"task_type" text,
	"date_created" timestamp with time zone DEFAULT now() NOT NULL,
	"date_closed" timestamp with time zone,
	"associated_with_type" text,
	"associated_with_id" text,
	"associated_with_label" text,
	"created_by_type" text,
	"created_by_id" text,
	"created_by_label" text,
	"assigned_to_type" text,
	"assigned_to_id" text,
	"assigned_to_label" text,
	"title" text,
	"note" text,
	"status" text DEFAULT 'Open' NOT NULL,
	"resolution" text,
	"automation_id" uuid,
	"conversation_id" text,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "times" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"plan_id" uuid NOT NULL,
	"display_name" text,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"teams" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "actions_church_automation_idx" ON "actions" USING btree ("church_id","automation_id");--> statement-breakpoint
CREATE INDEX "assignments_church_plan_idx" ON "assignments" USING btree ("church_id","plan_id");--> statement-breakpoint
CREATE INDEX "assignments_church_person_idx" ON "assignments" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "assignments_church_position_idx" ON "assignments" USING btree ("church_id","position_id");--> statement-breakpoint
CREATE UNIQUE INDEX "automation_runs_key_idx" ON "automation_runs" USING btree ("church_id","automation_id","person_id","period");--> statement-breakpoint
CREATE INDEX "automations_church_idx" ON "automations" USING btree ("church_id","active");--> statement-breakpoint
CREATE INDEX "blockout_dates_church_person_idx" ON "blockout_dates" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "blockout_dates_church_end_idx" ON "blockout_dates" USING btree ("church_id","end_date");--> statement-breakpoint
CREATE INDEX "conditions_church_automation_idx" ON "conditions" USING btree ("church_id","automation_id");--> statement-breakpoint
CREATE INDEX "conjunctions_church_automation_idx" ON "conjunctions" USING btree ("church_id","automation_id");--> statement-breakpoint
CREATE INDEX "content_provider_auths_church_ministry_idx" ON "content_provider_auths" USING btree ("church_id","ministry_id","provider_id");--> statement-breakpoint
CREATE INDEX "plan_items_church_plan_idx" ON "plan_items" USING btree ("church_id","plan_id","parent_id","sort");--> statement-breakpoint
CREATE INDEX "plan_types_church_ministry_idx" ON "plan_types" USING btree ("church_id","ministry_id");--> statement-breakpoint
CREATE INDEX "plans_church_date_idx" ON "plans" USING btree ("church_id","service_date");--> statement-breakpoint
CREATE INDEX "plans_church_type_date_idx" ON "plans" USING btree ("church_id","plan_type_id","service_date");--> statement-breakpoint
CREATE INDEX "plans_type_date_idx" ON "plans" USING btree ("plan_type_id","service_date");--> statement-breakpoint
CREATE INDEX "positions_church_plan_idx" ON "positions" USING btree ("church_id","plan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tasks_church_number_idx" ON "tasks" USING btree ("church_id","task_number");--> statement-breakpoint
CREATE INDEX "tasks_church_assigned_idx" ON "tasks" USING btree ("church_id","assigned_to_type","assigned_to_id","status");--> statement-breakpoint
CREATE INDEX "tasks_church_created_by_idx" ON "tasks" USING btree ("church_id","created_by_type","created_by_id","status");--> statement-breakpoint
CREATE INDEX "tasks_church_associated_idx" ON "tasks" USING btree ("church_id","associated_with_type","associated_with_id","task_type");--> statement-breakpoint
CREATE INDEX "times_church_plan_idx" ON "times" USING btree ("church_id","plan_id");