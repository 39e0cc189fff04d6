CREATE TABLE "registration_coupons" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"code" text NOT NULL,
	"discount_type" text DEFAULT 'percent' NOT NULL,
	"value" numeric(12, 2) DEFAULT '0' NOT NULL,
	"start_date" timestamp with time zone,
	"end_date" timestamp with time zone,
	"min_members" integer,
	"max_uses" integer,
	"active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registration_members" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"registration_id" uuid NOT NULL,
	"person_id" uuid,
	"first_name" text,
	"last_name" text,
	"registration_type_id" uuid
);
--> statement-breakpoint
CREATE TABLE "registration_payments" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"registration_id" uuid NOT NULL,
	"giving_payment_id" text NOT NULL,
	"provider" text,
	"transaction_id" text,
	"method" text,
	"amount" numeric(12, 2) NOT NULL,
	"currency" text,
	"kind" text DEFAULT 'charge' NOT NULL,
	"status" text NOT NULL,
	"person_id" uuid,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registration_selection_choices" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"registration_id" uuid NOT NULL,
	"registration_member_id" uuid,
	"selection_id" uuid NOT NULL,
	"quantity" integer DEFAULT 1 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registration_selections" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"price" numeric(12, 2),
	"capacity" integer,
	"max_quantity" integer,
	"sort" integer,
	"active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registration_types" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"price" numeric(12, 2),
	"capacity" integer,
	"min_age_years" integer,
	"max_age_years" integer,
	"form_id" uuid,
	"sort" integer,
	"active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE TABLE "registrations" (
	"id" uuid PRIMARY KEY NOT NULL,
	"church_id" uuid NOT NULL,
	"event_id" uuid NOT NULL,
	"person_id" uuid,
	"household_id" uuid,
	"status" text NOT NULL,
	"form_submission_id" uuid,
	"notes" text,
	"guest_first_name" text,
	"guest_last_name" text,
	"guest_email" text,
	"guest_phone" text,
	"registered_date" timestamp with time zone DEFAULT now() NOT NULL,
	"cancelled_date" timestamp with time zone,
	"total_amount" numeric(12, 2) DEFAULT '0' NOT NULL,
	"amount_paid" numeric(12, 2) DEFAULT '0' NOT NULL,
	"coupon_id" uuid,
	"waitlist_notified_date" timestamp with time zone,
	"pay_attempt" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "registration_coupons" ADD CONSTRAINT "registration_coupons_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_members" ADD CONSTRAINT "registration_members_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_members" ADD CONSTRAINT "registration_members_registration_type_id_registration_types_id_fk" FOREIGN KEY ("registration_type_id") REFERENCES "public"."registration_types"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_payments" ADD CONSTRAINT "registration_payments_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_selection_choices" ADD CONSTRAINT "registration_selection_choices_registration_id_registrations_id_fk" FOREIGN KEY ("registration_id") REFERENCES "public"."registrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_selection_choices" ADD CONSTRAINT "registration_selection_choices_registration_member_id_registration_members_id_fk" FOREIGN KEY ("registration_member_id") REFERENCES "public"."registration_members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_selection_choices" ADD CONSTRAINT "registration_selection_choices_selection_id_registration_selections_id_fk" FOREIGN KEY ("selection_id") REFERENCES "public"."registration_selections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_selections" ADD CONSTRAINT "registration_selections_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registration_types" ADD CONSTRAINT "registration_types_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registrations" ADD CONSTRAINT "registrations_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "registrations" ADD CONSTRAINT "registrations_coupon_id_registration_coupons_id_fk" FOREIGN KEY ("coupon_id") REFERENCES "public"."registration_coupons"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "registration_coupons_church_event_code_idx" ON "registration_coupons" USING btree ("church_id","event_id",lower("code"));--> statement-breakpoint
CREATE INDEX "registration_members_church_registration_idx" ON "registration_members" USING btree ("church_id","registration_id");--> statement-breakpoint
CREATE INDEX "registration_members_type_idx" ON "registration_members" USING btree ("registration_type_id");--> statement-breakpoint
CREATE INDEX "registration_payments_church_registration_idx" ON "registration_payments" USING btree ("church_id","registration_id","created_date");--> statement-breakpoint
CREATE UNIQUE INDEX "registration_payments_church_giving_idx" ON "registration_payments" USING btree ("church_id","giving_payment_id");--> statement-breakpoint
CREATE INDEX "registration_choices_church_registration_idx" ON "registration_selection_choices" USING btree ("church_id","registration_id");--> statement-breakpoint
CREATE INDEX "registration_choices_selection_idx" ON "registration_selection_choices" USING btree ("selection_id");--> statement-breakpoint
CREATE INDEX "registration_selections_church_event_idx" ON "registration_selections" USING btree ("church_id","event_id","sort");--> statement-breakpoint
CREATE INDEX "registration_types_church_event_idx" ON "registration_types" USING btree ("church_id","event_id","sort");--> statement-breakpoint
CREATE INDEX "registrations_church_event_idx" ON "registrations" USING btree ("church_id","event_id","status","registered_date");--> statement-breakpoint
CREATE INDEX "registrations_church_person_idx" ON "registrations" USING btree ("church_id","person_id");--> statement-breakpoint
CREATE INDEX "registrations_church_coupon_idx" ON "registrations" USING btree ("church_id","coupon_id");--> statement-breakpoint
CREATE UNIQUE INDEX "registrations_church_event_person_idx" ON "registrations" USING btree ("church_id","event_id","person_id") WHERE "registrations"."person_id" is not null and "registrations"."status" <> 'cancelled';