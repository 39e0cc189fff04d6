CREATE TABLE "visit_counts" (
	"church_id" uuid NOT NULL,
	"service_id" uuid,
	"visit_date" date NOT NULL,
	"visits" integer NOT NULL,
	CONSTRAINT "visit_counts_uq" UNIQUE NULLS NOT DISTINCT("church_id","service_id","visit_date")
);
