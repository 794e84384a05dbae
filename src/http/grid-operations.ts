import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.js';
import { BASE_PATH } from './openapi.js';

export interface GridOperation {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The document's path template, relative to the versioned base: `/customers/{customerId}`. */
  path: string;
  operationId: string;
  /** The credentials the document names when they are not BasicAuth. */
  credentials?: 'AgentAuth' | 'none';
}

/** Every operation of the Grid document, interface 2025-10-13 at commit cf2510ed, in the document's order. */
export const GRID_OPERATIONS: readonly GridOperation[] = [
  { method: 'GET', path: '/config', operationId: 'getPlatformConfig' },
  { method: 'PATCH', path: '/config', operationId: 'updatePlatformConfig' },
  { method: 'GET', path: '/exchange-rates', operationId: 'getExchangeRates' },
  { method: 'GET', path: '/discoveries', operationId: 'getDiscoveries' },
  { method: 'GET', path: '/customers', operationId: 'listCustomers' },
  { method: 'POST', path: '/customers', operationId: 'createCustomer' },
  { method: 'GET', path: '/customers/{customerId}', operationId: 'getCustomerById' },
  { method: 'DELETE', path: '/customers/{customerId}', operationId: 'deleteCustomerById' },
  { method: 'PATCH', path: '/customers/{customerId}', operationId: 'updateCustomerById' },
  { method: 'GET', path: '/customers/end-user-terms', operationId: 'getEndUserTerms' },
  { method: 'POST', path: '/customers/{customerId}/kyc-link', operationId: 'createCustomerKycLink' },
  { method: 'POST', path: '/customers/{customerId}/verify-email', operationId: 'sendCustomerEmailVerification' },
  { method: 'POST', path: '/customers/{customerId}/verify-email/confirm', operationId: 'confirmCustomerEmailVerification' },
  { method: 'POST', path: '/customers/{customerId}/verify-phone', operationId: 'sendCustomerPhoneVerification' },
  { method: 'POST', path: '/customers/{customerId}/verify-phone/confirm', operationId: 'confirmCustomerPhoneVerification' },
  { method: 'GET', path: '/sca/factors', operationId: 'listScaFactors' },
  { method: 'POST', path: '/sca/factors', operationId: 'startScaFactorEnrollment' },
  { method: 'POST', path: '/sca/factors/confirm', operationId: 'confirmScaFactorEnrollment' },
  { method: 'DELETE', path: '/sca/factors/{credentialId}', operationId: 'deleteScaFactor' },
  { method: 'POST', path: '/sca/login/start', operationId: 'startScaLogin' },
  { method: 'POST', path: '/sca/login/complete', operationId: 'completeScaLogin' },
  { method: 'POST', path: '/sca/record-event', operationId: 'recordSecurityEvent' },
  { method: 'POST', path: '/sca/factors/reset', operationId: 'startTwoFactorReset' },
  { method: 'GET', path: '/sca/factors/reset/{resetId}', operationId: 'getTwoFactorResetStatus' },
  { method: 'POST', path: '/sca/factors/reset/{resetId}/complete', operationId: 'completeTwoFactorReset' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/trust', operationId: 'startBeneficiaryTrust' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/trust/confirm', operationId: 'confirmBeneficiaryTrust' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/untrust', operationId: 'startBeneficiaryUntrust' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/untrust/confirm', operationId: 'confirmBeneficiaryUntrust' },
  { method: 'GET', path: '/customers/internal-accounts', operationId: 'listCustomerInternalAccounts' },
  { method: 'GET', path: '/platform/internal-accounts', operationId: 'listPlatformInternalAccounts' },
  { method: 'GET', path: '/customers/external-accounts', operationId: 'listCustomerExternalAccounts' },
  { method: 'POST', path: '/customers/external-accounts', operationId: 'createCustomerExternalAccount' },
  { method: 'GET', path: '/customers/external-accounts/{externalAccountId}', operationId: 'getCustomerExternalAccountById' },
  { method: 'DELETE', path: '/customers/external-accounts/{externalAccountId}', operationId: 'deleteCustomerExternalAccountById' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/challenge', operationId: 'createExternalAccountOwnershipChallenge' },
  { method: 'POST', path: '/customers/external-accounts/{externalAccountId}/verify', operationId: 'verifyExternalAccountOwnership' },
  { method: 'GET', path: '/platform/external-accounts', operationId: 'listPlatformExternalAccounts' },
  { method: 'POST', path: '/platform/external-accounts', operationId: 'createPlatformExternalAccount' },
  { method: 'GET', path: '/platform/external-accounts/{externalAccountId}', operationId: 'getPlatformExternalAccountById' },
  { method: 'DELETE', path: '/platform/external-accounts/{externalAccountId}', operationId: 'deletePlatformExternalAccountById' },
  { method: 'POST', path: '/platform/external-accounts/{externalAccountId}/challenge', operationId: 'createPlatformExternalAccountOwnershipChallenge' },
  { method: 'POST', path: '/platform/external-accounts/{externalAccountId}/verify', operationId: 'verifyPlatformExternalAccountOwnership' },
  { method: 'GET', path: '/beneficial-owners', operationId: 'listBeneficialOwners' },
  { method: 'POST', path: '/beneficial-owners', operationId: 'createBeneficialOwner' },
  { method: 'GET', path: '/beneficial-owners/{beneficialOwnerId}', operationId: 'getBeneficialOwner' },
  { method: 'PATCH', path: '/beneficial-owners/{beneficialOwnerId}', operationId: 'updateBeneficialOwner' },
  { method: 'GET', path: '/documents', operationId: 'listDocuments' },
  { method: 'POST', path: '/documents', operationId: 'uploadDocument' },
  { method: 'GET', path: '/documents/{documentId}', operationId: 'getDocument' },
  { method: 'PUT', path: '/documents/{documentId}', operationId: 'replaceDocument' },
  { method: 'DELETE', path: '/documents/{documentId}', operationId: 'deleteDocument' },
  { method: 'GET', path: '/verifications', operationId: 'listVerifications' },
  { method: 'POST', path: '/verifications', operationId: 'createVerification' },
  { method: 'GET', path: '/verifications/{verificationId}', operationId: 'getVerification' },
  { method: 'POST', path: '/transfer-in', operationId: 'createTransferIn' },
  { method: 'POST', path: '/transfer-out', operationId: 'createTransferOut' },
  { method: 'GET', path: '/receiver/uma/{receiverUmaAddress}', operationId: 'lookupUma' },
  { method: 'GET', path: '/receiver/external-account/{accountId}', operationId: 'lookupExternalAccount' },
  { method: 'GET', path: '/quotes/{quoteId}', operationId: 'getQuoteById' },
  { method: 'POST', path: '/quotes', operationId: 'createQuote' },
  { method: 'POST', path: '/quotes/{quoteId}/execute', operationId: 'executeQuote' },
  { method: 'POST', path: '/quotes/{quoteId}/authorize', operationId: 'authorizeQuote' },
  { method: 'POST', path: '/quotes/{quoteId}/authorize/resend', operationId: 'resendQuoteScaCode' },
  { method: 'GET', path: '/transactions', operationId: 'listTransactions' },
  { method: 'GET', path: '/transactions/{transactionId}', operationId: 'getTransactionById' },
  { method: 'POST', path: '/transactions/{transactionId}/confirm', operationId: 'confirmReceiptDelivery' },
  { method: 'POST', path: '/transactions/{transactionId}/approve', operationId: 'approvePendingPayment' },
  { method: 'POST', path: '/transactions/{transactionId}/reject', operationId: 'rejectPendingPayment' },
  { method: 'POST', path: '/transactions/{transactionId}/cancel', operationId: 'cancelTransaction' },
  { method: 'POST', path: '/crypto/estimate-withdrawal-fee', operationId: 'estimateCryptoWithdrawalFee' },
  { method: 'POST', path: '/sandbox/webhooks/test', operationId: 'sendTestWebhook' },
  { method: 'POST', path: '/customers/bulk/csv', operationId: 'uploadCustomersCsv' },
  { method: 'GET', path: '/customers/bulk/jobs/{jobId}', operationId: 'getBulkCustomerImportJob' },
  { method: 'POST', path: '/invitations', operationId: 'createInvitation' },
  { method: 'GET', path: '/invitations/{invitationCode}', operationId: 'getInvitation' },
  { method: 'POST', path: '/invitations/{invitationCode}/claim', operationId: 'claimInvitation' },
  { method: 'POST', path: '/invitations/{invitationCode}/cancel', operationId: 'cancelInvitation' },
  { method: 'POST', path: '/sandbox/send', operationId: 'sandboxSend' },
  { method: 'POST', path: '/sandbox/uma/receive', operationId: 'sandboxReceive' },
  { method: 'POST', path: '/sandbox/internal-accounts/{accountId}/fund', operationId: 'sandboxFundInternalAccount' },
  { method: 'GET', path: '/uma-providers', operationId: 'getAvailableUmaProviders' },
  { method: 'GET', path: '/vasps', operationId: 'listVasps' },
  { method: 'GET', path: '/tokens', operationId: 'listTokens' },
  { method: 'POST', path: '/tokens', operationId: 'createToken' },
  { method: 'GET', path: '/tokens/{tokenId}', operationId: 'getTokenById' },
  { method: 'DELETE', path: '/tokens/{tokenId}', operationId: 'deleteTokenById' },
  { method: 'PATCH', path: '/internal-accounts/{id}', operationId: 'updateInternalAccount' },
  { method: 'POST', path: '/internal-accounts/{id}/export', operationId: 'exportInternalAccount' },
  { method: 'GET', path: '/auth/credentials', operationId: 'listAuthCredentials' },
  { method: 'POST', path: '/auth/credentials', operationId: 'createAuthCredential' },
  { method: 'DELETE', path: '/auth/credentials/{id}', operationId: 'revokeAuthCredential' },
  { method: 'POST', path: '/auth/credentials/{id}/verify', operationId: 'verifyAuthCredential' },
  { method: 'POST', path: '/auth/credentials/{id}/challenge', operationId: 'challengeAuthCredential' },
  { method: 'GET', path: '/auth/sessions', operationId: 'listAuthSessions' },
  { method: 'DELETE', path: '/auth/sessions/{id}', operationId: 'revokeAuthSession' },
  { method: 'POST', path: '/auth/sessions/{id}/refresh', operationId: 'refreshAuthSession' },
  { method: 'GET', path: '/auth/delegated-keys', operationId: 'listDelegatedKeys' },
  { method: 'POST', path: '/auth/delegated-keys', operationId: 'createDelegatedKey' },
  { method: 'GET', path: '/auth/delegated-keys/{id}', operationId: 'getDelegatedKeyById' },
  { method: 'DELETE', path: '/auth/delegated-keys/{id}', operationId: 'revokeDelegatedKey' },
  { method: 'GET', path: '/agents', operationId: 'listAgents' },
  { method: 'POST', path: '/agents', operationId: 'createAgent' },
  { method: 'GET', path: '/agents/approvals', operationId: 'listAgentApprovals' },
  { method: 'GET', path: '/agents/me', operationId: 'getAgentMe', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/{agentId}', operationId: 'getAgentById' },
  { method: 'DELETE', path: '/agents/{agentId}', operationId: 'deleteAgent' },
  { method: 'PATCH', path: '/agents/{agentId}', operationId: 'updateAgent' },
  { method: 'PATCH', path: '/agents/{agentId}/policy', operationId: 'updateAgentPolicy' },
  { method: 'POST', path: '/agents/{agentId}/device-codes', operationId: 'regenerateAgentDeviceCode' },
  { method: 'POST', path: '/agents/{agentId}/actions/{actionId}/approve', operationId: 'approveAgentAction' },
  { method: 'POST', path: '/agents/{agentId}/actions/{actionId}/reject', operationId: 'rejectAgentAction' },
  { method: 'GET', path: '/agents/device-codes/{code}/status', operationId: 'getAgentDeviceCodeStatus' },
  { method: 'POST', path: '/agents/device-codes/{code}/redeem', operationId: 'redeemAgentDeviceCode', credentials: 'none' },
  { method: 'GET', path: '/agents/me/transactions', operationId: 'agentListTransactions', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/transactions/{transactionId}', operationId: 'agentGetTransaction', credentials: 'AgentAuth' },
  { method: 'POST', path: '/agents/me/quotes', operationId: 'agentCreateQuote', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/quotes/{quoteId}', operationId: 'agentGetQuote', credentials: 'AgentAuth' },
  { method: 'POST', path: '/agents/me/quotes/{quoteId}/execute', operationId: 'agentExecuteQuote', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/actions', operationId: 'agentListActions', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/actions/{actionId}', operationId: 'agentGetAction', credentials: 'AgentAuth' },
  { method: 'POST', path: '/agents/me/transfer-in', operationId: 'agentCreateTransferIn', credentials: 'AgentAuth' },
  { method: 'POST', path: '/agents/me/transfer-out', operationId: 'agentCreateTransferOut', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/internal-accounts', operationId: 'agentListInternalAccounts', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/external-accounts', operationId: 'agentListExternalAccounts', credentials: 'AgentAuth' },
  { method: 'POST', path: '/agents/me/external-accounts', operationId: 'agentCreateExternalAccount', credentials: 'AgentAuth' },
  { method: 'GET', path: '/agents/me/external-accounts/{externalAccountId}', operationId: 'agentGetExternalAccount', credentials: 'AgentAuth' },
  { method: 'DELETE', path: '/agents/me/external-accounts/{externalAccountId}', operationId: 'agentDeleteExternalAccount', credentials: 'AgentAuth' },
  { method: 'GET', path: '/cards', operationId: 'listCards' },
  { method: 'POST', path: '/cards', operationId: 'createCard' },
  { method: 'GET', path: '/cards/{id}', operationId: 'getCardById' },
  { method: 'PATCH', path: '/cards/{id}', operationId: 'updateCardById' },
  { method: 'POST', path: '/cards/{id}/reveal', operationId: 'revealCard' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/authorization', operationId: 'sandboxSimulateCardAuthorization' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/clearing', operationId: 'sandboxSimulateCardClearing' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/return', operationId: 'sandboxSimulateCardReturn' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/balance_inquiry', operationId: 'sandboxSimulateCardBalanceInquiry' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/credit_authorization', operationId: 'sandboxSimulateCardCreditAuthorization' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/financial_authorization', operationId: 'sandboxSimulateCardFinancialAuthorization' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/financial_credit_authorization', operationId: 'sandboxSimulateCardFinancialCreditAuthorization' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/authorization_advice', operationId: 'sandboxSimulateCardAuthorizationAdvice' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/credit_authorization_advice', operationId: 'sandboxSimulateCardCreditAuthorizationAdvice' },
  { method: 'POST', path: '/sandbox/cards/{id}/simulate/return_reversal', operationId: 'sandboxSimulateCardReturnReversal' },
  { method: 'GET', path: '/stablecoins', operationId: 'listStablecoins' },
  { method: 'POST', path: '/stablecoins', operationId: 'registerStablecoin' },
  { method: 'GET', path: '/stablecoins/{stablecoinId}', operationId: 'getStablecoin' },
  { method: 'POST', path: '/stablecoins/{stablecoinId}/mints', operationId: 'createStablecoinMint' },
  { method: 'POST', path: '/stablecoins/{stablecoinId}/burns', operationId: 'createStablecoinBurn' },
  { method: 'GET', path: '/stablecoins/{stablecoinId}/operations', operationId: 'listStablecoinOperations' },
  { method: 'GET', path: '/stablecoin-operations/{stablecoinOperationId}', operationId: 'getStablecoinOperation' },
  { method: 'GET', path: '/stablecoin-provider-accounts', operationId: 'listStablecoinProviderAccounts' },
  { method: 'POST', path: '/stablecoin-provider-accounts', operationId: 'linkStablecoinProviderAccount' },
  { method: 'GET', path: '/stablecoin-provider-accounts/{stablecoinProviderAccountId}', operationId: 'getStablecoinProviderAccount' },
];

/** The Fastify route path of a document path template: `{customerId}` becomes `:customerId`. */
function routePath(path: string): string {
  return BASE_PATH + path.replace(/\{(\w+)\}/g, ':$1');
}

function notImplemented(op: GridOperation): ApiError {
  return new ApiError('NOT_IMPLEMENTED', `${op.operationId} (${op.method} ${op.path}) is an operation of the Grid interface this service does not implement yet`);
}

/**
 * Registers, after every real route, a 501 NOT_IMPLEMENTED route for each operation of the document
 * Fastify has no route for, so what is built is known from the router alone. Its static paths win
 * over the built parametric ones (`GET /customers/end-user-terms` is not `GET /customers/{id}`).
 * Authentication is the service's BasicAuth; an operation the document gives only an agent bearer
 * token (which this service never issues) or no credentials answers its 501 to anyone. The sandbox
 * operations are sandbox-only as every /sandbox/ path is (absent from a production server, a 404 to
 * a production token). None is in the OpenAPI document, which lists what is implemented.
 */
export function registerUnimplementedOperations(app: FastifyInstance, serviceEnv: string): void {
  for (const op of GRID_OPERATIONS) {
    const url = routePath(op.path);
    const sandboxOnly = op.path.startsWith('/sandbox/');
    if (app.hasRoute({ method: op.method, url }) || (sandboxOnly && serviceEnv === 'production')) continue;
    app.route({
      method: op.method,
      url,
      schema: { hide: true },
      config: op.credentials === undefined ? { permission: 'VIEW', sandboxOnly } : { public: true },
      // Before the body is read, so an upload of any type or size is answered the same 501.
      onRequest: async () => {
        throw notImplemented(op);
      },
      // Fastify requires one; onRequest has answered already.
      handler: async () => {
        throw notImplemented(op);
      },
    });
  }
}
