CREATE TABLE "reminder_definitions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" uuid,
	"scope_id" uuid,
	"offsets" text NOT NULL,
	"send_local_time" text NOT NULL,
	"time_zone" text,
	"message" text,
	"channels" text NOT NULL,
	"recipient_mode" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"date_created" timestamp with time zone DEFAULT now() NOT NULL,
	"date_modified" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reminder_occurrences" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"definition_id" uuid NOT NULL,
	"entity_type" text NOT NULL,
	"entity_id" uuid NOT NULL,
	"occurrence" text NOT NULL,
	"offset_minutes" integer NOT NULL,
	"fire_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"sent_at" timestamp with time zone,
	"recipient_count" integer
);
--> statement-breakpoint
ALTER TABLE "reminder_occurrences" ADD CONSTRAINT "reminder_occurrences_definition_id_reminder_definitions_id_fk" FOREIGN KEY ("definition_id") REFERENCES "public"."reminder_definitions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "reminder_definitions_entity_idx" ON "reminder_definitions" USING btree ("church_id","entity_type","entity_id") WHERE "reminder_definitions"."entity_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "reminder_definitions_scope_idx" ON "reminder_definitions" USING btree ("church_id","entity_type","scope_id") WHERE "reminder_definitions"."scope_id" is not null;--> statement-breakpoint
CREATE INDEX "reminder_definitions_enabled_idx" ON "reminder_definitions" USING btree ("enabled","church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "reminder_occurrences_key_idx" ON "reminder_occurrences" USING btree ("church_id","definition_id","entity_id","occurrence","offset_minutes");--> statement-breakpoint
CREATE INDEX "reminder_occurrences_due_idx" ON "reminder_occurrences" USING btree ("fire_at") WHERE "reminder_occurrences"."status" = 'pending';