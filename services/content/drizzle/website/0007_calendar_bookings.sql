CREATE TABLE "calendar_blockouts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"room_id" uuid,
	"resource_id" uuid,
	"start_time" timestamp with time zone NOT NULL,
	"end_time" timestamp with time zone NOT NULL,
	"reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "calendar_blockouts_one_target" CHECK ("calendar_blockouts"."room_id" is null or "calendar_blockouts"."resource_id" is null)
);
--> statement-breakpoint
CREATE TABLE "event_bookings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"room_id" uuid,
	"resource_id" uuid,
	"quantity" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'approved' NOT NULL,
	"setup_minutes" integer,
	"teardown_minutes" integer,
	"start_time" timestamp with time zone,
	"end_time" timestamp with time zone,
	"requested_by" uuid,
	"requested_date" timestamp with time zone,
	"resolved_by" uuid,
	"resolved_date" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "event_bookings_one_target" CHECK (("event_bookings"."room_id" is null) <> ("event_bookings"."resource_id" is null)),
	CONSTRAINT "event_bookings_quantity" CHECK ("event_bookings"."quantity" > 0)
);
--> statement-breakpoint
CREATE TABLE "event_rsvps" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"occurrence_start" timestamp with time zone NOT NULL,
	"response" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"title" text,
	"description" text,
	"duration_minutes" integer,
	"visibility" text,
	"room_ids" text,
	"resources_json" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "resources" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"quantity" integer DEFAULT 1 NOT NULL,
	"approval_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rooms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"capacity" integer,
	"approval_group_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" ALTER COLUMN "group_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "approval_status" text;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "requested_by" uuid;--> statement-breakpoint
ALTER TABLE "events" ADD COLUMN "rsvp_disabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "calendar_blockouts" ADD CONSTRAINT "calendar_blockouts_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calendar_blockouts" ADD CONSTRAINT "calendar_blockouts_resource_id_resources_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_bookings" ADD CONSTRAINT "event_bookings_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_bookings" ADD CONSTRAINT "event_bookings_room_id_rooms_id_fk" FOREIGN KEY ("room_id") REFERENCES "public"."rooms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_bookings" ADD CONSTRAINT "event_bookings_resource_id_resources_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."resources"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_rsvps" ADD CONSTRAINT "event_rsvps_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "calendar_blockouts_church_time_idx" ON "calendar_blockouts" USING btree ("church_id","start_time");--> statement-breakpoint
CREATE INDEX "event_bookings_church_event_idx" ON "event_bookings" USING btree ("church_id","event_id");--> statement-breakpoint
CREATE INDEX "event_bookings_church_room_idx" ON "event_bookings" USING btree ("church_id","room_id") WHERE "event_bookings"."room_id" is not null;--> statement-breakpoint
CREATE INDEX "event_bookings_church_resource_idx" ON "event_bookings" USING btree ("church_id","resource_id") WHERE "event_bookings"."resource_id" is not null;--> statement-breakpoint
CREATE INDEX "event_bookings_church_pending_idx" ON "event_bookings" USING btree ("church_id","requested_date") WHERE "event_bookings"."status" = 'pending';--> statement-breakpoint
CREATE UNIQUE INDEX "event_rsvps_church_event_person_occurrence_idx" ON "event_rsvps" USING btree ("church_id","event_id","person_id","occurrence_start");--> statement-breakpoint
CREATE INDEX "event_rsvps_church_event_occurrence_idx" ON "event_rsvps" USING btree ("church_id","event_id","occurrence_start");--> statement-breakpoint
CREATE INDEX "event_templates_church_idx" ON "event_templates" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "resources_church_idx" ON "resources" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "rooms_church_idx" ON "rooms" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "events_church_requested_idx" ON "events" USING btree ("church_id","requested_by") WHERE "events"."requested_by" is not null;