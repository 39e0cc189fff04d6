-- Group rosters are answered from snapshots too (attendance's session download revalidates them): a change to
-- a group's members raises the church's data version like changes to people and groups (0006).
CREATE CONSTRAINT TRIGGER group_members_data_version AFTER INSERT OR UPDATE OR DELETE ON group_members
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bump_data_version();
