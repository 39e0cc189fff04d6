CREATE TABLE "blocks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text,
	"block_type" text DEFAULT 'elementBlock' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "curated_calendars" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "curated_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"curated_calendar_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"event_id" uuid
);
--> statement-breakpoint
CREATE TABLE "data_versions" (
	"church_id" uuid PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "elements" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"section_id" uuid NOT NULL,
	"block_id" uuid,
	"parent_id" uuid,
	"element_type" text NOT NULL,
	"sort" double precision DEFAULT 0 NOT NULL,
	"answers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"styles" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"animations" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "event_exceptions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"exception_date" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"all_day" boolean DEFAULT false NOT NULL,
	"start" timestamp with time zone NOT NULL,
	"end" timestamp with time zone NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"visibility" text DEFAULT 'public' NOT NULL,
	"recurrence_rule" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "global_styles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"fonts" text,
	"palette" text,
	"typography" text,
	"spacing" text,
	"border_radius" text,
	"custom_css" text,
	"custom_js" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"category" text DEFAULT 'website' NOT NULL,
	"url" text,
	"link_type" text,
	"link_data" text,
	"icon" text,
	"text" text,
	"sort" double precision DEFAULT 0 NOT NULL,
	"parent_id" uuid,
	"visibility" text DEFAULT 'everyone' NOT NULL,
	"group_ids" jsonb DEFAULT '[]'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "page_history" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"page_id" uuid,
	"block_id" uuid,
	"snapshot" jsonb NOT NULL,
	"description" text,
	"user_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "pages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text,
	"url" text NOT NULL,
	"title" text,
	"meta_description" text,
	"layout" text,
	"visibility" text DEFAULT 'everyone' NOT NULL,
	"group_ids" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "posts" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"title" text NOT NULL,
	"slug" text NOT NULL,
	"excerpt" text,
	"content" text,
	"author_id" uuid,
	"photo_url" text,
	"publish_date" timestamp with time zone,
	"category" text,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "redirects" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"from_path" text NOT NULL,
	"to_path" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"page_id" uuid,
	"block_id" uuid,
	"zone" text DEFAULT 'main' NOT NULL,
	"background" text,
	"text_color" text,
	"heading_color" text,
	"link_color" text,
	"target_block_id" uuid,
	"sort" double precision DEFAULT 0 NOT NULL,
	"answers" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"styles" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"animations" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid,
	"key_name" text NOT NULL,
	"value" text,
	"public" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "curated_events" ADD CONSTRAINT "curated_events_curated_calendar_id_curated_calendars_id_fk" FOREIGN KEY ("curated_calendar_id") REFERENCES "public"."curated_calendars"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "curated_events" ADD CONSTRAINT "curated_events_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elements" ADD CONSTRAINT "elements_section_id_sections_id_fk" FOREIGN KEY ("section_id") REFERENCES "public"."sections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elements" ADD CONSTRAINT "elements_block_id_blocks_id_fk" FOREIGN KEY ("block_id") REFERENCES "public"."blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "elements" ADD CONSTRAINT "elements_parent_id_elements_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."elements"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "event_exceptions" ADD CONSTRAINT "event_exceptions_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_page_id_pages_id_fk" FOREIGN KEY ("page_id") REFERENCES "public"."pages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sections" ADD CONSTRAINT "sections_block_id_blocks_id_fk" FOREIGN KEY ("block_id") REFERENCES "public"."blocks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "blocks_church_type_idx" ON "blocks" USING btree ("church_id","block_type");--> statement-breakpoint
CREATE INDEX "curated_calendars_church_idx" ON "curated_calendars" USING btree ("church_id");--> statement-breakpoint
CREATE INDEX "curated_events_church_calendar_idx" ON "curated_events" USING btree ("church_id","curated_calendar_id");--> statement-breakpoint
CREATE INDEX "elements_church_section_idx" ON "elements" USING btree ("church_id","section_id","sort");--> statement-breakpoint
CREATE INDEX "elements_parent_idx" ON "elements" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "event_exceptions_church_event_idx" ON "event_exceptions" USING btree ("church_id","event_id");--> statement-breakpoint
CREATE INDEX "events_church_group_idx" ON "events" USING btree ("church_id","group_id","start");--> statement-breakpoint
CREATE UNIQUE INDEX "global_styles_church_idx" ON "global_styles" USING btree ("church_id");--> statement-breakpoint
CREATE INDEX "links_church_category_idx" ON "links" USING btree ("church_id","category","sort");--> statement-breakpoint
CREATE INDEX "page_history_church_page_idx" ON "page_history" USING btree ("church_id","page_id","created_at");--> statement-breakpoint
CREATE INDEX "page_history_church_block_idx" ON "page_history" USING btree ("church_id","block_id","created_at");--> statement-breakpoint
CREATE INDEX "page_history_created_idx" ON "page_history" USING btree ("created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "pages_church_url_idx" ON "pages" USING btree ("church_id","url");--> statement-breakpoint
CREATE UNIQUE INDEX "posts_church_slug_idx" ON "posts" USING btree ("church_id","slug");--> statement-breakpoint
CREATE INDEX "posts_church_publish_idx" ON "posts" USING btree ("church_id","publish_date");--> statement-breakpoint
CREATE UNIQUE INDEX "redirects_church_from_idx" ON "redirects" USING btree ("church_id","from_path");--> statement-breakpoint
CREATE INDEX "sections_church_page_idx" ON "sections" USING btree ("church_id","page_id","zone","sort");--> statement-breakpoint
CREATE INDEX "sections_church_block_idx" ON "sections" USING btree ("church_id","block_id","zone","sort");--> statement-breakpoint
CREATE UNIQUE INDEX "settings_church_user_key_idx" ON "settings" USING btree ("church_id",coalesce("user_id", '00000000-0000-0000-0000-000000000000'::uuid),"key_name");