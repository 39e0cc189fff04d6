import type { FastifyPluginAsync } from 'fastify';
import donations from './donations';
import donationBatches from './donation-batches';
import donate from './donate';
import funds from './funds';
import fundDonations from './fund-donations';
import gateways from './gateways';
import customers from './customers';
import subscriptions from './subscriptions';
import subscriptionFunds from './subscription-funds';
import paymentMethods from './payment-methods';
import eventLog from './event-log';

/** The giving module's route files, one per spec table. */
export const routes: FastifyPluginAsync[] = [donations, donationBatches, donate, funds, fundDonations, gateways, customers, subscriptions, subscriptionFunds, paymentMethods, eventLog];
