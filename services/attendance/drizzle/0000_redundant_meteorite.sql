CREATE TABLE "campuses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"address1" text,
	"address2" text,
	"city" text,
	"state" text,
	"zip" text,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_service_times" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"service_time_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "service_times" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"name" text NOT NULL,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "services" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"campus_id" uuid,
	"name" text NOT NULL,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"service_time_id" uuid,
	"session_date" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visit_sessions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"visit_id" uuid NOT NULL,
	"session_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visits" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"service_id" uuid,
	"visit_date" date NOT NULL,
	"checkin_time" timestamp with time zone,
	"added_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "campuses_church_name_idx" ON "campuses" USING btree ("church_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "group_service_times_group_uq" ON "group_service_times" USING btree ("church_id","group_id","service_time_id");--> statement-breakpoint
CREATE INDEX "group_service_times_time_idx" ON "group_service_times" USING btree ("church_id","service_time_id");--> statement-breakpoint
CREATE INDEX "service_times_church_service_idx" ON "service_times" USING btree ("church_id","service_id");--> statement-breakpoint
CREATE INDEX "services_church_campus_idx" ON "services" USING btree ("church_id","campus_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sessions_group_time_date_uq" ON "sessions" USING btree ("church_id","group_id","service_time_id","session_date");--> statement-breakpoint
CREATE INDEX "sessions_church_time_date_idx" ON "sessions" USING btree ("church_id","service_time_id","session_date");--> statement-breakpoint
CREATE INDEX "sessions_church_date_idx" ON "sessions" USING btree ("church_id","session_date");--> statement-breakpoint
CREATE UNIQUE INDEX "visit_sessions_visit_session_uq" ON "visit_sessions" USING btree ("church_id","visit_id","session_id");--> statement-breakpoint
CREATE INDEX "visit_sessions_session_idx" ON "visit_sessions" USING btree ("church_id","session_id","visit_id");--> statement-breakpoint
CREATE UNIQUE INDEX "visits_person_date_service_uq" ON "visits" USING btree ("church_id","person_id","visit_date","service_id");--> statement-breakpoint
CREATE INDEX "visits_church_date_idx" ON "visits" USING btree ("church_id","visit_date");--> statement-breakpoint
CREATE INDEX "visits_church_service_date_idx" ON "visits" USING btree ("church_id","service_id","visit_date");