CREATE TABLE "workflow_categories" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sort" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_executions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"trigger_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"event_key" text NOT NULL,
	"event_type" text NOT NULL,
	"subject_type" text DEFAULT 'person' NOT NULL,
	"subject_id" text,
	"subject_label" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"task_id" uuid,
	"date_created" timestamp with time zone DEFAULT now() NOT NULL,
	"date_completed" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_step_actions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"step_id" uuid NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL,
	"action_type" text NOT NULL,
	"config" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_step_routes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"step_id" uuid NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL,
	"trigger" text DEFAULT 'onComplete' NOT NULL,
	"kind" text DEFAULT 'outcome' NOT NULL,
	"label" text,
	"target_step_id" uuid,
	"target_workflow_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_steps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL,
	"default_assign_to_type" text,
	"default_assign_to_id" text,
	"default_assign_to_label" text,
	"expected_response_days" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflow_triggers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"trigger_kind" text DEFAULT 'event' NOT NULL,
	"event_type" text,
	"recurs" text,
	"workflow_id" uuid NOT NULL,
	"step_id" uuid,
	"conditions" text,
	"once_per_subject" boolean DEFAULT true NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"category_id" uuid,
	"active" boolean DEFAULT true NOT NULL,
	"sort" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "conditions" ALTER COLUMN "automation_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "conjunctions" ALTER COLUMN "automation_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "conditions" ADD COLUMN "trigger_id" uuid;--> statement-breakpoint
ALTER TABLE "conditions" ADD COLUMN "step_route_id" uuid;--> statement-breakpoint
ALTER TABLE "conjunctions" ADD COLUMN "trigger_id" uuid;--> statement-breakpoint
ALTER TABLE "conjunctions" ADD COLUMN "step_route_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "workflow_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "step_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "trigger_id" uuid;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "due_date" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "snoozed_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "sort" integer;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "pinned_assignment" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_categories_church_idx" ON "workflow_categories" USING btree ("church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_executions_key_idx" ON "workflow_executions" USING btree ("church_id","trigger_id","event_key");--> statement-breakpoint
CREATE INDEX "workflow_executions_church_workflow_idx" ON "workflow_executions" USING btree ("church_id","workflow_id","date_created");--> statement-breakpoint
CREATE INDEX "workflow_step_actions_church_step_idx" ON "workflow_step_actions" USING btree ("church_id","step_id","sort");--> statement-breakpoint
CREATE INDEX "workflow_step_actions_church_workflow_idx" ON "workflow_step_actions" USING btree ("church_id","workflow_id");--> statement-breakpoint
CREATE INDEX "workflow_step_routes_church_step_idx" ON "workflow_step_routes" USING btree ("church_id","step_id","sort");--> statement-breakpoint
CREATE INDEX "workflow_step_routes_church_workflow_idx" ON "workflow_step_routes" USING btree ("church_id","workflow_id");--> statement-breakpoint
CREATE INDEX "workflow_steps_church_workflow_idx" ON "workflow_steps" USING btree ("church_id","workflow_id","sort");--> statement-breakpoint
CREATE INDEX "workflow_triggers_church_event_idx" ON "workflow_triggers" USING btree ("church_id","event_type","active");--> statement-breakpoint
CREATE INDEX "workflow_triggers_church_workflow_idx" ON "workflow_triggers" USING btree ("church_id","workflow_id");--> statement-breakpoint
CREATE INDEX "workflows_church_idx" ON "workflows" USING btree ("church_id","sort");--> statement-breakpoint
CREATE INDEX "conditions_church_trigger_idx" ON "conditions" USING btree ("church_id","trigger_id");--> statement-breakpoint
CREATE INDEX "conditions_church_step_route_idx" ON "conditions" USING btree ("church_id","step_route_id");--> statement-breakpoint
CREATE INDEX "conjunctions_church_trigger_idx" ON "conjunctions" USING btree ("church_id","trigger_id");--> statement-breakpoint
CREATE INDEX "conjunctions_church_step_route_idx" ON "conjunctions" USING btree ("church_id","step_route_id");--> statement-breakpoint
CREATE INDEX "tasks_church_workflow_idx" ON "tasks" USING btree ("church_id","workflow_id","status","step_id","sort");--> statement-breakpoint
CREATE INDEX "tasks_snoozed_idx" ON "tasks" USING btree ("snoozed_until") WHERE snoozed_until is not null;