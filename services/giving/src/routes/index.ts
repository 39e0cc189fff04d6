import type { FastifyPluginAsync } from 'fastify';
import donations from './donations';
import donationBatches from './donation-batches';
import donatePayments from './donate/payments';
import donatePublic from './donate/public';
import donateWebhooks from './donate/webhooks';
import funds from './funds';
import fundDonations from './fund-donations';
import gateways from './gateways';
import customers from './customers';
import subscriptions from './subscriptions';
import subscriptionFunds from './subscription-funds';
import paymentMethods from './payment-methods';
import eventLog from './event-log';
import campaigns from './campaigns';
import pledges from './pledges';
import internal from './internal';

/** The giving module's route files, one per spec table (`/donate` in three: payments, public parts, webhooks), the apps' campaigns and pledges, and what the other modules ask (`internal`). */
export const routes: FastifyPluginAsync[] = [donations, donationBatches, donatePayments, donatePublic, donateWebhooks, funds, fundDonations, gateways, customers, subscriptions, subscriptionFunds, paymentMethods, eventLog, campaigns, pledges, internal];
