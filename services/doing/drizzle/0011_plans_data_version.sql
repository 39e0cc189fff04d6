-- The plan lists (GET /plans, GET /plans/types/:planTypeId: every plan of the church, megabytes of JSON for a
-- church that plans every day) are kept answers per church and data version, as the service order is (0003):
-- a write to plans raises the church's version through the shared trigger. Only writes to the columns the
-- answers carry: an assignment's write rewrites its plan's `assignees` (0005), which no answer shows, and must
-- not throw the kept lists away.
CREATE CONSTRAINT TRIGGER plans_data_version
  AFTER INSERT OR DELETE OR UPDATE OF id, church_id, ministry_id, plan_type_id, name, service_date, notes, service_order,
    content_type, content_id, campus_id, provider_id, provider_plan_id, provider_plan_name, signup_deadline_hours,
    show_volunteer_names, prepared, auto_replace_on_decline, last_autofill_run_id
  ON plans DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
