CREATE TABLE "arrangement_keys" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"arrangement_id" uuid NOT NULL,
	"key_signature" text,
	"short_description" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "arrangements" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"song_id" uuid NOT NULL,
	"song_detail_id" uuid,
	"name" text,
	"lyrics" text,
	"presenter_app_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bible_books" (
	"id" uuid PRIMARY KEY NOT NULL,
	"translation_key" text NOT NULL,
	"key_name" text NOT NULL,
	"abbreviation" text,
	"name" text NOT NULL,
	"sort" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bible_chapters" (
	"id" uuid PRIMARY KEY NOT NULL,
	"translation_key" text NOT NULL,
	"book_key" text NOT NULL,
	"key_name" text NOT NULL,
	"number" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bible_lookups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"translation_key" text NOT NULL,
	"lookup_time" timestamp with time zone DEFAULT now() NOT NULL,
	"ip_address" text,
	"start_verse_key" text NOT NULL,
	"end_verse_key" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bible_translations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"key_name" text NOT NULL,
	"source" text NOT NULL,
	"source_key" text NOT NULL,
	"abbreviation" text,
	"name" text NOT NULL,
	"name_local" text,
	"description" text,
	"language" text,
	"countries" text,
	"copyright" text,
	"attribution_required" boolean DEFAULT false NOT NULL,
	"attribution_string" text,
	"cacheable" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "bible_verses" (
	"id" uuid PRIMARY KEY NOT NULL,
	"translation_key" text NOT NULL,
	"verse_key" text NOT NULL,
	"book_key" text NOT NULL,
	"chapter_number" integer NOT NULL,
	"verse_number" integer NOT NULL,
	"ordinal" integer NOT NULL,
	"content" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "files" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text NOT NULL,
	"file_name" text NOT NULL,
	"file_type" text,
	"size" bigint DEFAULT 0 NOT NULL,
	"storage_key" text NOT NULL,
	"content_path" text NOT NULL,
	"uploaded" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "gallery_images" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"folder" text NOT NULL,
	"image" text NOT NULL,
	"storage_key" text NOT NULL,
	"url" text NOT NULL,
	"file_type" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "playlists" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"publish_date" timestamp with time zone,
	"thumbnail" text,
	"is_public" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sermons" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"playlist_id" uuid,
	"video_type" text,
	"video_data" text,
	"video_url" text,
	"title" text NOT NULL,
	"description" text,
	"publish_date" timestamp with time zone,
	"thumbnail" text,
	"duration" integer,
	"permanent_url" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sheet_music_requests" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sheet_music_requests_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "sheet_music_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"token" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "song_detail_links" (
	"id" uuid PRIMARY KEY NOT NULL,
	"song_detail_id" uuid NOT NULL,
	"service" text NOT NULL,
	"service_key" text,
	"url" text,
	"created_by" text,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "song_details" (
	"id" uuid PRIMARY KEY NOT NULL,
	"sheet_music_id" text,
	"music_brainz_id" text,
	"title" text,
	"artist" text,
	"album" text,
	"language" text,
	"thumbnail" text,
	"release_date" timestamp with time zone,
	"bpm" integer,
	"key_signature" text,
	"seconds" integer,
	"meter" text,
	"tones" text,
	"created_by" text,
	"updated_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "songs" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text,
	"date_added" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "streaming_services" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"label" text,
	"service_time" timestamp with time zone NOT NULL,
	"early_start" integer DEFAULT 0 NOT NULL,
	"duration" integer DEFAULT 60 NOT NULL,
	"chat_before" integer DEFAULT 0 NOT NULL,
	"chat_after" integer DEFAULT 0 NOT NULL,
	"provider" text,
	"provider_key" text,
	"video_url" text,
	"timezone_offset" integer,
	"recurring" boolean DEFAULT false NOT NULL,
	"sermon_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "arrangement_keys_church_arrangement_idx" ON "arrangement_keys" USING btree ("church_id","arrangement_id");--> statement-breakpoint
CREATE INDEX "arrangements_church_song_idx" ON "arrangements" USING btree ("church_id","song_id");--> statement-breakpoint
CREATE INDEX "arrangements_church_detail_idx" ON "arrangements" USING btree ("church_id","song_detail_id");--> statement-breakpoint
CREATE INDEX "arrangements_church_presenter_idx" ON "arrangements" USING btree ("church_id","presenter_app_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bible_books_key_idx" ON "bible_books" USING btree ("translation_key","key_name");--> statement-breakpoint
CREATE UNIQUE INDEX "bible_chapters_key_idx" ON "bible_chapters" USING btree ("translation_key","book_key","number");--> statement-breakpoint
CREATE INDEX "bible_lookups_time_idx" ON "bible_lookups" USING btree ("lookup_time");--> statement-breakpoint
CREATE UNIQUE INDEX "bible_translations_key_idx" ON "bible_translations" USING btree ("key_name");--> statement-breakpoint
CREATE UNIQUE INDEX "bible_verses_key_idx" ON "bible_verses" USING btree ("translation_key","verse_key");--> statement-breakpoint
CREATE INDEX "bible_verses_ordinal_idx" ON "bible_verses" USING btree ("translation_key","ordinal");--> statement-breakpoint
CREATE INDEX "files_church_content_idx" ON "files" USING btree ("church_id","content_type","content_id");--> statement-breakpoint
CREATE UNIQUE INDEX "gallery_images_church_folder_image_idx" ON "gallery_images" USING btree ("church_id","folder","image");--> statement-breakpoint
CREATE INDEX "playlists_church_idx" ON "playlists" USING btree ("church_id","publish_date");--> statement-breakpoint
CREATE INDEX "sermons_church_publish_idx" ON "sermons" USING btree ("church_id","publish_date");--> statement-breakpoint
CREATE INDEX "sermons_church_playlist_idx" ON "sermons" USING btree ("church_id","playlist_id");--> statement-breakpoint
CREATE INDEX "sermons_church_video_idx" ON "sermons" USING btree ("church_id","video_type","video_data");--> statement-breakpoint
CREATE UNIQUE INDEX "sheet_music_tokens_user_idx" ON "sheet_music_tokens" USING btree ("church_id","user_id");--> statement-breakpoint
CREATE INDEX "song_detail_links_detail_idx" ON "song_detail_links" USING btree ("song_detail_id");--> statement-breakpoint
CREATE UNIQUE INDEX "song_details_sheet_music_idx" ON "song_details" USING btree ("sheet_music_id");--> statement-breakpoint
CREATE INDEX "song_details_title_idx" ON "song_details" USING btree ("title");--> statement-breakpoint
CREATE INDEX "songs_church_idx" ON "songs" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "streaming_services_church_idx" ON "streaming_services" USING btree ("church_id","service_time");