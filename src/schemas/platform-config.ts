import { Type } from 'typebox';
import { MAX_ENDPOINT_LENGTH } from '../domain/platform/platform-config.js';
import { FEE_SOURCE_CURRENCIES, FEE_TYPES, TRANSACTION_TYPES } from '../domain/platform/platform-config-fields.js';
import { extension } from './common.js';
import { NOT_BLANK } from './fields.js';

const CUSTOMER_INFO_FIELDS = [
  'FULL_NAME',
  'BIRTH_DATE',
  'NATIONALITY',
  'PHONE_NUMBER',
  'EMAIL',
  'POSTAL_ADDRESS',
  'TAX_ID',
  'REGISTRATION_NUMBER',
  'USER_TYPE',
  'COUNTRY_OF_RESIDENCE',
  'ACCOUNT_IDENTIFIER',
  'FI_LEGAL_ENTITY_NAME',
  'FI_ADDRESS',
  'PURPOSE_OF_PAYMENT',
  'ULTIMATE_INSTITUTION_COUNTRY',
  'IDENTIFIER',
  'BUSINESS_TYPE',
  'COMPANY_LEGAL_NAME',
  'ID_TYPE',
  'ID_NUMBER',
];

const CustomerInfoFieldName = Type.Enum(CUSTOMER_INFO_FIELDS, { description: 'A kind of information about a customer or a counterparty' });
const IsoCurrencyCode = (description: string) => Type.String({ pattern: '^[A-Z]{3}$', description, examples: ['USD'] });
/** Amounts in the smallest unit, within what JSON numbers carry exactly. */
const MinorUnits = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });
const text = (maxLength: number, description: string) => Type.String({ minLength: 1, maxLength, pattern: NOT_BLANK, description });
const strict = { additionalProperties: false } as const;

const CurrencyConfigSchema = Type.Object(
  {
    currencyCode: IsoCurrencyCode('ISO 4217 code; each currency appears once'),
    minAmount: MinorUnits('Smallest amount that can be sent, in the smallest unit of the currency'),
    maxAmount: MinorUnits('Largest amount that can be sent, in the smallest unit; at least minAmount'),
    requiredCounterpartyFields: Type.Array(
      Type.Object({ name: CustomerInfoFieldName, mandatory: Type.Boolean({ description: 'False: wanted, not required' }) }, strict),
      { description: 'What the platform asks counterparty institutions to tell about their customers; each name once' },
    ),
    providerRequiredCustomerFields: Type.Optional(Type.Array(CustomerInfoFieldName, { readOnly: true, description: 'Read-only; accepted and ignored' })),
    providerRequiredCounterpartyCustomerFields: Type.Optional(Type.Array(CustomerInfoFieldName, { readOnly: true, description: 'Read-only; accepted and ignored' })),
    enabledTransactionTypes: Type.Array(Type.Enum([...TRANSACTION_TYPES]), { uniqueItems: true, description: 'Directions enabled for this currency' }),
  },
  { ...strict, description: 'A currency the platform supports' },
);

const EmbeddedWalletConfigSchema = Type.Object(
  {
    appName: Type.Optional(text(255, 'App name shown in the one-time-code email')),
    otpLength: Type.Optional(Type.Integer({ minimum: 4, maximum: 12, description: 'Length of the one-time code (default 6)' })),
    alphanumeric: Type.Optional(Type.Boolean({ description: 'Letters as well as digits in the code (default digits only)' })),
    expirationSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86400, description: 'How long a code stays valid (default 300)' })),
    sendFromEmailAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255, description: 'Sender address of the code emails' })),
    sendFromEmailSenderName: Type.Optional(text(255, 'Sender display name')),
    replyToEmailAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255, description: 'Reply-to address of the code emails' })),
    logoUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 512, description: 'PNG logo for the code email' })),
  },
  { ...strict, description: 'Embedded wallet branding and one-time-code settings; a PATCH changes only the fields it gives' },
);

const CardTokenization2faConfigSchema = Type.Object(
  {
    displayName: Type.Optional(text(255, 'Platform name in the authentication messages')),
    logoUrl: Type.Optional(Type.String({ format: 'uri', pattern: '^https://', maxLength: 512, description: 'HTTPS URL of the logo in the emails' })),
    email: Type.Optional(
      Type.Object(
        {
          fromAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
          fromName: Type.Optional(text(255, 'Sender display name')),
          replyToAddress: Type.Optional(Type.String({ format: 'email', maxLength: 255 })),
          subject: Type.Optional(text(255, 'Email subject')),
          bodyText: Type.Optional(text(2000, 'Plain text; the code is added to it')),
        },
        strict,
      ),
    ),
    sms: Type.Optional(
      Type.Object(
        {
          templateSid: Type.Optional(text(64, 'SMS provider template id')),
          bodyText: Type.Optional(text(480, 'Plain-text fallback message; the code is appended')),
        },
        strict,
      ),
    ),
  },
  { ...strict, description: 'Branding of the codes sent when a cardholder adds a card to a digital wallet; a PATCH changes only the fields it gives' },
);

const FeeConfigSchema = Type.Object(
  {
    feeType: Type.Enum([...FEE_TYPES]),
    sourceCurrency: IsoCurrencyCode(`Sending-side currency; only ${FEE_SOURCE_CURRENCIES.join(', ')} is implemented (others: 501 NOT_IMPLEMENTED)`),
    variableFeeBps: Type.Integer({ minimum: 0, maximum: 10000, description: 'Basis points of the source amount' }),
    fixedFee: Type.Object(
      {
        amount: MinorUnits('In the smallest unit of its currency'),
        currency: Type.String({ pattern: '^[A-Z0-9]{2,10}$', description: 'ISO 4217 code, or a ticker such as BTC' }),
      },
      strict,
    ),
  },
  { ...strict, description: 'A platform fee, one per (feeType, sourceCurrency)' },
);

const SANDBOX_AUTHORIZATION_TTL = (description: string) =>
  Type.Integer({
    ...extension('The field: the sandbox clock of this service'),
    minimum: 60,
    maximum: 63_072_000,
    description: `${description}. A fully open card authorization (AUTHORIZED, nothing settled) expires by itself this many seconds after it was authorized, on the platform's sandbox clock (60 s to two years)`,
  });

const WEBHOOK_PUBLIC_KEY_DESCRIPTION =
  "PEM (SPKI) of the platform's ECDSA P-256 public key. X-Grid-Signature on every delivery is base64 of a DER-encoded ECDSA signature over " +
  "SHA-256 of the raw body: `crypto.verify('sha256', rawBody, webhookPublicKey, Buffer.from(header, 'base64'))`. Rotating the webhook secret keeps this key.";

export const PlatformConfigSchema = Type.Object(
  {
    id: Type.String({ examples: ['PlatformConfig:019542f5-b3e7-1d02-0000-000000000003'] }),
    umaDomain: Type.Optional(Type.String({ description: 'UMA domain of the platform; absent until set' })),
    webhookEndpoint: Type.Optional(Type.String({ description: 'URL where webhook notifications are sent; absent when none is set' })),
    supportedCurrencies: Type.Array(CurrencyConfigSchema, { description: 'Currencies the platform supports, as last set; empty until set' }),
    isRegulatedFinancialInstitution: Type.Boolean({ description: 'Set when a platform is created; false for every platform here' }),
    embeddedWalletConfig: Type.Optional(EmbeddedWalletConfigSchema),
    cardTokenization2faConfig: Type.Optional(CardTokenization2faConfigSchema),
    feeConfigs: Type.Array(FeeConfigSchema, { description: 'Every active fee config' }),
    sandboxAuthorizationTtlSeconds: SANDBOX_AUTHORIZATION_TTL("The platform's authorization time-to-live, its own or the server's SANDBOX_AUTHORIZATION_TTL_MS"),
    webhookSecret: Type.Optional(
      Type.String({
        description:
          'Standard Webhooks signing secret (`whsec_` + base64), an extension of this service. Verify deliveries with it, e.g. `new Webhook(secret).verify(body, headers)` from the standardwebhooks package. ' +
          'Shown only to MANAGE tokens: GET /config leaves it out for VIEW and TRANSACT tokens.',
        examples: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'],
      }),
    ),
    previousWebhookSecretExpiresAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Present during a rotation window: until then deliveries also carry a signature made with the previous secret' }),
    ),
    webhookPublicKey: Type.String({ description: WEBHOOK_PUBLIC_KEY_DESCRIPTION }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'The platform configuration' },
);

export const UpdateConfigBody = Type.Object(
  {
    umaDomain: Type.Optional(Type.String({ format: 'hostname', maxLength: 253, description: 'UMA domain of the platform', examples: ['pay.example.com'] })),
    webhookEndpoint: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        format: 'uri',
        maxLength: MAX_ENDPOINT_LENGTH,
        description:
          'Absolute http(s) URL that receives webhooks; null removes it (events are then kept as WEBHOOK_ENDPOINT_NOT_SET). ' +
          'On a server reachable from other machines, a loopback, private, link-local or other internal address is refused here when written as an address, and at delivery when a name resolves to one.',
        examples: ['https://api.mycompany.com/webhooks/grid'],
      }),
    ),
    supportedCurrencies: Type.Optional(Type.Array(CurrencyConfigSchema, { maxItems: 200, description: 'Replaces the list' })),
    embeddedWalletConfig: Type.Optional(EmbeddedWalletConfigSchema),
    cardTokenization2faConfig: Type.Optional(CardTokenization2faConfigSchema),
    feeConfigs: Type.Optional(
      Type.Array(FeeConfigSchema, {
        maxItems: 100,
        description: 'Upserted by (feeType, sourceCurrency); a config whose variable and fixed fees are both 0 is removed; left out: unchanged',
      }),
    ),
    sandboxAuthorizationTtlSeconds: Type.Optional(Type.Union([SANDBOX_AUTHORIZATION_TTL('Sets the platform\'s authorization time-to-live'), Type.Null({ description: "Returns to the server's SANDBOX_AUTHORIZATION_TTL_MS" })])),
  },
  { additionalProperties: false },
);
