CREATE TABLE "label_templates" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"label_type" text NOT NULL,
	"width" numeric(5, 2) NOT NULL,
	"height" numeric(5, 2) NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"content" text DEFAULT '[]' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "label_templates_church_name_idx" ON "label_templates" USING btree ("church_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "label_templates_default_uq" ON "label_templates" USING btree ("church_id","label_type") WHERE "label_templates"."is_default";