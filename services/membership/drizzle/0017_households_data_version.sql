-- The households list (`GET /households`, 3,000 rows in a church of 10,000) is answered from a snapshot like the
-- people and groups lists: a change to a household raises the church's data version like changes to people (0006).
CREATE CONSTRAINT TRIGGER households_data_version AFTER INSERT OR UPDATE OR DELETE ON households
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
