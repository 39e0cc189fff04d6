import { randomUUID } from 'node:crypto';
import { hasPermission } from '@church/auth';
import { Id, REMOTE, assertReferences, badRequest, checkPublicUrl, rowsByIds, unauthorized, type Actor } from '@church/common';
import type { DoingDeps } from '../deps';
import { workflowSteps, workflows } from '../db/schema';
import { actionsOfStep, insertStepActions, insertStepRoutes, insertSteps, insertWorkflow, routesOfStep, type WorkflowRow } from '../repos/workflows';
import { parseConfig } from './cards';
import { change, report } from './changes';

type Deps = Pick<DoingDeps, 'db' | 'internal' | 'queue' | 'module' | 'config'>;
type NewStep = Omit<typeof workflowSteps.$inferInsert, 'id' | 'churchId' | 'workflowId'> & { id?: string };

/**
 * A new workflow with steps (a template's, or a copy's), in one transaction. A copy (`sourceId`: the steps are the
 * source's) keeps each step's actions, acting for whoever made the copy, and its routes within the workflow (targets
 * mapped to the new steps; `personMatch` routes, whose conditions are not copied, are left out).
 */
export async function createWorkflow(deps: Deps, actor: Actor, fields: { name: string; categoryId?: string | null; active?: boolean; sort?: number | null }, steps: NewStep[], sourceId?: string): Promise<WorkflowRow> {
  const churchId = actor.churchId;
  return deps.queue.transaction(deps.db, async (tx) => {
    const workflow = await insertWorkflow(tx, { id: randomUUID(), churchId, ...fields });
    const stepRows = steps.map(({ id: _id, createdAt: _c, updatedAt: _u, ...s }) => ({ ...s, id: randomUUID(), churchId, workflowId: workflow.id }));
    const written = await insertSteps(tx, stepRows);
    const changes = [change('workflow', undefined, workflow), ...written.map((s) => change('workflowStep', undefined, s))];
    if (sourceId) {
      const newId = new Map(steps.map((s, i) => [s.id!, stepRows[i]!.id]));
      for (const step of steps) {
        const actions = await actionsOfStep(tx, churchId, step.id!);
        // the copies act for whoever made the copy (a copied `setField` is applied only while they may edit people)
        const configuredBy = { configuredByUserId: actor.id, configuredByPersonId: actor.personId ?? null };
        await insertStepActions(tx, actions.map(({ createdAt: _c, updatedAt: _u, ...a }) => ({ ...a, ...configuredBy, id: randomUUID(), workflowId: workflow.id, stepId: newId.get(step.id!)! })));
        const routes = (await routesOfStep(tx, churchId, step.id!)).filter((r) => r.kind !== 'personMatch');
        await insertStepRoutes(tx, routes.map(({ createdAt: _c, updatedAt: _u, ...r }) => ({ ...r, id: randomUUID(), workflowId: workflow.id, stepId: newId.get(step.id!)!, targetStepId: r.targetStepId ? (newId.get(r.targetStepId) ?? null) : null })));
      }
    }
    await report(deps, actor, changes, tx);
    return workflow;
  });
}

/**
 * What a step action's settings name must be the church's, checked as it is saved (before the save's transaction):
 * `setField` needs the saver's own People.Edit (401), a group is one of the church's groups (membership), a
 * workflow (and its step) the church's, a template an id (messaging's templates are checked when it sends), a
 * webhook's address public by the rule its delivery applies. `param` names the action's `config` in the body.
 */
export async function checkActionConfig(deps: Deps, actor: Actor, param: string, actionType: string, text: string | null): Promise<void> {
  const config = parseConfig(text);
  const given = (key: string) => (config[key] === undefined || config[key] === null || config[key] === '' ? undefined : config[key]);
  if (actionType === 'setField') {
    if (!hasPermission(actor, 'People.Edit')) throw unauthorized("Missing permission: People.Edit (a step action that changes people's records)");
    const field = given('field');
    if (field !== undefined && (typeof field !== 'string' || field.length > 100)) throw badRequest(`${param}.field`, 'must be the name of a person field');
    const value = given('value');
    if (value !== undefined && !['string', 'number', 'boolean'].includes(typeof value)) throw badRequest(`${param}.value`, 'must be text, a number or a yes/no');
  }
  if (actionType === 'webhook') {
    // the rule its delivery applies (`fetchOutbound`), on save
    const url = given('url');
    if (url !== undefined) await checkPublicUrl(String(url), { param: `${param}.url`, allowPrivate: deps.config.OUTBOUND_ALLOW_PRIVATE });
  }
  if (actionType === 'sendEmail') {
    const templateId = given('templateId');
    if (templateId !== undefined && (typeof templateId !== 'string' || !Id.safeParse(templateId).success)) throw badRequest(`${param}.templateId`, 'must be the id of an email template');
  }
  if (actionType === 'addToGroup' || actionType === 'removeFromGroup') {
    const groupId = given('groupId');
    if (groupId !== undefined && (typeof groupId !== 'string' || !Id.safeParse(groupId).success)) throw badRequest(`${param}.groupId`, 'groupId is not a group of this church');
    await assertReferences(deps, actor.churchId, [config], { groupId: REMOTE.groups }, (_i, field) => `${param}.${field}`);
  }
  if (actionType === 'addToWorkflow') {
    const workflowId = given('workflowId');
    const stepId = given('stepId');
    if (workflowId === undefined) return;
    const [workflow] = typeof workflowId === 'string' && Id.safeParse(workflowId).success ? await rowsByIds(deps.db, workflows, actor.churchId, [workflowId]) : [];
    if (!workflow) throw badRequest(`${param}.workflowId`, 'workflowId is not a record of this church');
    if (stepId === undefined) return;
    const [step] = typeof stepId === 'string' && Id.safeParse(stepId).success ? await rowsByIds(deps.db, workflowSteps, actor.churchId, [stepId]) : [];
    if (!step || step.workflowId !== workflow.id) throw badRequest(`${param}.stepId`, 'must be a step of that workflow');
  }
}
