import { z } from 'zod';
import { Id, IdList, IsoDate } from '@church/common';

/** The request and answer shapes of `src/routes/group-members.ts` (what it accepts and what leaves it). */

export const PersonBrief = z.object({
  id: z.string(),
  name: z.object({ first: z.string().nullable(), last: z.string().nullable(), display: z.string().nullable() }),
  photo: z.string().nullable(),
  membershipStatus: z.string().nullable(),
  contactInfo: z.object({ email: z.string().nullable() }).optional(),
});

export const GroupMember = z.object({
  id: z.string(),
  churchId: z.string(),
  groupId: z.string(),
  personId: z.string(),
  leader: z.boolean(),
  joinDate: z.date(),
  person: PersonBrief.optional(),
  group: z.object({ id: z.string(), name: z.string(), photoUrl: z.string().nullable() }).optional(),
});

export const GroupMemberList = z.array(GroupMember);

export const PublicMember = z.object({
  personId: z.string(),
  displayName: z.string().nullable(),
  leader: z.boolean(),
  photo: z.string().nullable(),
  /** B1App's group page reads the member as `person` */
  person: z.object({ id: z.string(), name: z.object({ display: z.string().nullable() }), photo: z.string().nullable() }),
});

export const PublicMemberList = z.array(PublicMember);

export const MemberSave = z
  .object({ id: Id.optional(), groupId: Id.optional(), personId: Id.optional(), leader: z.boolean().optional(), joinDate: IsoDate.optional() })
  .refine((m) => m.id || (m.groupId && m.personId), { message: 'groupId and personId are required', path: ['groupId'] });

export const ListQuery = z.object({ groupId: Id.optional(), groupIds: IdList.optional(), personId: Id.optional() });

export const PublicParams = z.object({ churchId: Id, groupId: Id });
