import type { z } from 'zod';
import { callInternal, givingInternal, type InternalClient } from '@church/common';

// What content asks of giving, through its typed contract.

export type RegistrationCharge = z.input<typeof givingInternal.registrationCharge.body>;

/**
 * Charges a registration's balance (`givingInternal.registrationCharge`); giving's 4xx (a declined card, no
 * gateway) is handed on as it is, anything else is `callInternal`'s 503 or 502.
 */
export function chargeRegistration(internal: InternalClient, charge: RegistrationCharge) {
  return callInternal(internal, givingInternal.registrationCharge, charge, { passClientErrors: true });
}
