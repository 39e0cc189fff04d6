ALTER TABLE "workflow_step_actions" ADD COLUMN "configured_by_user_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_step_actions" ADD COLUMN "configured_by_person_id" uuid;