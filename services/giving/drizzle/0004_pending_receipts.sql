CREATE TABLE "pending_receipts" (
	"church_id" uuid NOT NULL,
	"donation_id" uuid NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"claimed_at" timestamp with time zone,
	CONSTRAINT "pending_receipts_church_id_donation_id_pk" PRIMARY KEY("church_id","donation_id")
);
