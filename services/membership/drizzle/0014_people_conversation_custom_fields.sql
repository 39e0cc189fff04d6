CREATE TABLE "person_field_values" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"field_id" uuid NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "person_fields" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"field_type" text DEFAULT 'Textbox' NOT NULL,
	"choices" text,
	"sort" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "people" ADD COLUMN "conversation_id" uuid;--> statement-breakpoint
CREATE UNIQUE INDEX "person_field_values_uq" ON "person_field_values" USING btree ("church_id","person_id","field_id");--> statement-breakpoint
CREATE INDEX "person_field_values_field_idx" ON "person_field_values" USING btree ("church_id","field_id");--> statement-breakpoint
CREATE INDEX "person_fields_church_idx" ON "person_fields" USING btree ("church_id","sort");