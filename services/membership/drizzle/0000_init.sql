CREATE TABLE "churches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"sub_domain" text,
	"address1" text,
	"address2" text,
	"city" text,
	"state" text,
	"zip" text,
	"country" text,
	"archived_date" timestamp with time zone,
	"last_activity" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "client_errors" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid,
	"user_id" uuid,
	"origin_url" text,
	"application" text,
	"error_type" text,
	"message" text,
	"details" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" uuid PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_hash" text,
	"redirect_uris" text[] DEFAULT '{}'::text[] NOT NULL,
	"scopes" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"church_id" uuid NOT NULL,
	"redirect_uri" text NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_device_codes" (
	"id" uuid PRIMARY KEY NOT NULL,
	"device_code_hash" text NOT NULL,
	"user_code" text NOT NULL,
	"client_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"user_id" uuid,
	"church_id" uuid,
	"expires_at" timestamp with time zone NOT NULL,
	"last_polled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"id" uuid PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"client_id" text NOT NULL,
	"user_id" uuid NOT NULL,
	"church_id" uuid NOT NULL,
	"scopes" text[] NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"role_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"added_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_permissions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"role_id" uuid,
	"api_name" text NOT NULL,
	"content_type" text NOT NULL,
	"content_id" text,
	"action" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "user_churches" (
	"id" uuid PRIMARY KEY NOT NULL,
	"user_id" uuid NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid,
	"last_accessed" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" uuid PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"password_hash" text,
	"first_name" text,
	"last_name" text,
	"auth_guid_hash" text,
	"auth_guid_expires_at" timestamp with time zone,
	"last_login" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "households" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "people" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"user_id" uuid,
	"display_name" text,
	"first_name" text,
	"middle_name" text,
	"last_name" text,
	"nick_name" text,
	"prefix" text,
	"suffix" text,
	"birth_date" date,
	"gender" text,
	"marital_status" text,
	"anniversary" date,
	"membership_status" text DEFAULT 'Guest' NOT NULL,
	"home_phone" text,
	"mobile_phone" text,
	"work_phone" text,
	"email" text,
	"address1" text,
	"address2" text,
	"city" text,
	"state" text,
	"zip" text,
	"photo" text,
	"photo_updated" timestamp with time zone,
	"household_id" uuid,
	"household_role" text,
	"opted_out" boolean DEFAULT false NOT NULL,
	"campus_id" uuid,
	"nametag_notes" text,
	"school" text,
	"grade" text,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "visibility_preferences" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"address" text,
	"phone_number" text,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "group_members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"group_id" uuid NOT NULL,
	"person_id" uuid NOT NULL,
	"leader" boolean DEFAULT false NOT NULL,
	"join_date" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "groups" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"category_name" text,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"track_attendance" boolean DEFAULT false NOT NULL,
	"parent_pickup" boolean DEFAULT false NOT NULL,
	"print_nametag" boolean DEFAULT false NOT NULL,
	"about" text,
	"photo_url" text,
	"tags" text[] DEFAULT '{}' NOT NULL,
	"labels" text[] DEFAULT '{}' NOT NULL,
	"meeting_time" text,
	"meeting_location" text,
	"public_roster" boolean DEFAULT false NOT NULL,
	"parent_group_id" uuid,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "answers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"form_submission_id" uuid NOT NULL,
	"question_id" uuid NOT NULL,
	"value" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "form_submissions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"form_id" uuid NOT NULL,
	"content_type" text,
	"content_id" uuid,
	"submitted_by" uuid,
	"submission_date" timestamp with time zone DEFAULT now() NOT NULL,
	"revision_date" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "forms" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"name" text NOT NULL,
	"content_type" text DEFAULT 'form' NOT NULL,
	"restricted" boolean DEFAULT false NOT NULL,
	"access_start_time" timestamp with time zone,
	"access_end_time" timestamp with time zone,
	"archived" boolean DEFAULT false NOT NULL,
	"auto_create_person" boolean DEFAULT false NOT NULL,
	"follow_up_subject" text,
	"follow_up_body" text,
	"thank_you_message" text,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_permissions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"member_id" uuid NOT NULL,
	"content_type" text DEFAULT 'form' NOT NULL,
	"content_id" uuid NOT NULL,
	"action" text DEFAULT 'view' NOT NULL,
	"email_notification" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "questions" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"form_id" uuid NOT NULL,
	"parent_id" uuid,
	"title" text,
	"description" text,
	"field_type" text DEFAULT 'Textbox' NOT NULL,
	"placeholder" text,
	"sort" integer DEFAULT 0 NOT NULL,
	"choices" jsonb,
	"required" boolean DEFAULT false NOT NULL,
	"removed" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "domains" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"domain_name" text NOT NULL,
	"last_checked" timestamp with time zone,
	"is_stale" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"key_name" text NOT NULL,
	"value" text,
	"public" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "churches_sub_domain_uq" ON "churches" USING btree (lower("sub_domain"));--> statement-breakpoint
CREATE INDEX "churches_name_idx" ON "churches" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "client_errors_church_idx" ON "client_errors" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_clients_client_id_uq" ON "oauth_clients" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_codes_hash_uq" ON "oauth_codes" USING btree ("code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_device_hash_uq" ON "oauth_device_codes" USING btree ("device_code_hash");--> statement-breakpoint
CREATE INDEX "oauth_device_user_code_idx" ON "oauth_device_codes" USING btree ("user_code");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_refresh_hash_uq" ON "oauth_refresh_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "role_members_uq" ON "role_members" USING btree ("church_id","role_id","user_id");--> statement-breakpoint
CREATE INDEX "role_members_user_idx" ON "role_members" USING btree ("user_id","church_id");--> statement-breakpoint
CREATE INDEX "role_permissions_role_idx" ON "role_permissions" USING btree ("church_id","role_id");--> statement-breakpoint
CREATE INDEX "roles_church_idx" ON "roles" USING btree ("church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "user_churches_uq" ON "user_churches" USING btree ("church_id","user_id");--> statement-breakpoint
CREATE INDEX "user_churches_user_idx" ON "user_churches" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_uq" ON "users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "users_auth_guid_idx" ON "users" USING btree ("auth_guid_hash");--> statement-breakpoint
CREATE INDEX "households_church_idx" ON "households" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "people_church_name_idx" ON "people" USING btree ("church_id","last_name","first_name");--> statement-breakpoint
CREATE INDEX "people_church_email_idx" ON "people" USING btree ("church_id",lower("email"));--> statement-breakpoint
CREATE INDEX "people_church_household_idx" ON "people" USING btree ("church_id","household_id");--> statement-breakpoint
CREATE INDEX "people_church_user_idx" ON "people" USING btree ("church_id","user_id");--> statement-breakpoint
CREATE INDEX "people_church_created_idx" ON "people" USING btree ("church_id","created_at");--> statement-breakpoint
CREATE INDEX "visibility_preferences_person_idx" ON "visibility_preferences" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "group_members_uq" ON "group_members" USING btree ("church_id","group_id","person_id");--> statement-breakpoint
CREATE INDEX "group_members_person_idx" ON "group_members" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE UNIQUE INDEX "groups_church_slug_uq" ON "groups" USING btree ("church_id","slug");--> statement-breakpoint
CREATE INDEX "groups_church_name_idx" ON "groups" USING btree ("church_id","name");--> statement-breakpoint
CREATE INDEX "answers_submission_idx" ON "answers" USING btree ("church_id","form_submission_id");--> statement-breakpoint
CREATE INDEX "form_submissions_form_idx" ON "form_submissions" USING btree ("church_id","form_id");--> statement-breakpoint
CREATE INDEX "form_submissions_content_idx" ON "form_submissions" USING btree ("church_id","content_id");--> statement-breakpoint
CREATE INDEX "forms_church_idx" ON "forms" USING btree ("church_id","archived","name");--> statement-breakpoint
CREATE INDEX "member_permissions_content_idx" ON "member_permissions" USING btree ("church_id","content_id");--> statement-breakpoint
CREATE INDEX "member_permissions_member_idx" ON "member_permissions" USING btree ("church_id","member_id");--> statement-breakpoint
CREATE INDEX "questions_form_idx" ON "questions" USING btree ("church_id","form_id","sort");--> statement-breakpoint
CREATE UNIQUE INDEX "domains_name_uq" ON "domains" USING btree ("domain_name");--> statement-breakpoint
CREATE INDEX "domains_church_idx" ON "domains" USING btree ("church_id");--> statement-breakpoint
CREATE UNIQUE INDEX "settings_church_key_uq" ON "settings" USING btree ("church_id","key_name");