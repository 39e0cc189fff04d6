CREATE TABLE "api_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"person_id" uuid,
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"scopes" text[] NOT NULL,
	"last_used_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "associated_groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text NOT NULL,
	"group_id" uuid NOT NULL,
	"settings" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "batch_items" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"batch_id" uuid NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"action" text NOT NULL,
	"before" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid,
	"label" text,
	"source" text,
	"status" text DEFAULT 'completed' NOT NULL,
	"item_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"undone_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "group_join_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"message" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"request_date" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_by" uuid,
	"decided_date" timestamp with time zone,
	"decline_reason" text
);
--> statement-breakpoint
CREATE TABLE "household_pickups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"household_id" uuid NOT NULL,
	"person_id" uuid,
	"name" text,
	"photo_url" text,
	"relationship" text,
	"status" text DEFAULT 'trusted' NOT NULL,
	"notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_relay_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid,
	"session_code" text NOT NULL,
	"provider" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"auth_code" text,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "saved_lists" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"created_by_person_id" uuid,
	"name" text NOT NULL,
	"category" text,
	"conditions" jsonb,
	"rules" jsonb,
	"scope" text DEFAULT 'org' NOT NULL,
	"household_inclusion" text DEFAULT 'none' NOT NULL,
	"auto_refresh" boolean DEFAULT false NOT NULL,
	"notify_on_change" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sites" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"sub_domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_attempts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"delivery_id" uuid NOT NULL,
	"attempt" integer NOT NULL,
	"response_status" integer,
	"response_body" text,
	"error" text,
	"duration_ms" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"webhook_id" uuid NOT NULL,
	"message_id" text NOT NULL,
	"event" text NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"response_status" integer,
	"response_body" text,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"secret" text NOT NULL,
	"events" text[] NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"connector_type" text DEFAULT 'standard' NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"created_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "domains" ADD COLUMN "site_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "person_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_logs" ADD COLUMN "batch_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_uq" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "api_keys_church_idx" ON "api_keys" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE INDEX "api_keys_church_user_idx" ON "api_keys" USING btree ("church_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "associated_groups_uq" ON "associated_groups" USING btree ("church_id","content_type","content_id","group_id");--> statement-breakpoint
CREATE INDEX "associated_groups_church_group_idx" ON "associated_groups" USING btree ("church_id","group_id");--> statement-breakpoint
CREATE INDEX "batch_items_church_batch_idx" ON "batch_items" USING btree ("church_id","batch_id");--> statement-breakpoint
CREATE INDEX "batches_church_idx" ON "batches" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE INDEX "group_join_requests_church_status_idx" ON "group_join_requests" USING btree ("church_id","status","group_id");--> statement-breakpoint
CREATE INDEX "group_join_requests_church_person_idx" ON "group_join_requests" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "group_join_requests_pending_uq" ON "group_join_requests" USING btree ("church_id","group_id","person_id") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "household_pickups_church_household_idx" ON "household_pickups" USING btree ("church_id","household_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_relay_sessions_code_uq" ON "oauth_relay_sessions" USING btree ("session_code");--> statement-breakpoint
CREATE INDEX "oauth_relay_sessions_expires_idx" ON "oauth_relay_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "saved_lists_church_idx" ON "saved_lists" USING btree ("church_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "sites_sub_domain_uq" ON "sites" USING btree (lower("sub_domain"));--> statement-breakpoint
CREATE INDEX "sites_church_idx" ON "sites" USING btree ("church_id");--> statement-breakpoint
CREATE INDEX "webhook_attempts_church_delivery_idx" ON "webhook_attempts" USING btree ("church_id","delivery_id","attempt");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_church_webhook_idx" ON "webhook_deliveries" USING btree ("church_id","webhook_id","created_at");--> statement-breakpoint
CREATE INDEX "webhooks_church_idx" ON "webhooks" USING btree ("church_id");--> statement-breakpoint
CREATE INDEX "audit_logs_church_person_idx" ON "audit_logs" USING btree ("church_id","person_id","created_at");--> statement-breakpoint
CREATE INDEX "audit_logs_church_user_idx" ON "audit_logs" USING btree ("church_id","user_id","created_at");