import { Type } from 'typebox';
import { ID_TYPES, KYC_STATUSES, OWNER_ROLES } from '../domain/customers/beneficial-owners.js';
import { PageQuerySchema } from './common.js';
import { AddressSchema, CountryCodeSchema, EmailSchema, PastDateSchema, PhoneNumberSchema, text } from './fields.js';

const name = (description: string) => text(100, description);

const personalInfoFields = {
  firstName: name('First name'),
  middleName: Type.Optional(name('Middle name')),
  lastName: name('Last name'),
  birthDate: PastDateSchema('Date of birth, YYYY-MM-DD'),
  nationality: CountryCodeSchema('ISO 3166-1 alpha-2 country code'),
  email: Type.Optional(EmailSchema),
  phoneNumber: Type.Optional(PhoneNumberSchema),
  address: AddressSchema,
  idType: Type.Enum([...ID_TYPES]),
  identifier: text(64, 'The identification number or value'),
  countryOfIssuance: Type.Optional(CountryCodeSchema('ISO 3166-1 alpha-2 code of the country that issued the identification')),
};

const PersonalInfoSchema = Type.Object(personalInfoFields, { additionalProperties: false });
const PersonalInfoPatchSchema = Type.Partial(PersonalInfoSchema, { additionalProperties: false, description: 'Only the given fields change; address, if given, is replaced whole' });
const RolesSchema = Type.Array(Type.Enum([...OWNER_ROLES]), { minItems: 1, uniqueItems: true, description: 'Roles of the person within the business; at least one, no duplicates' });
const OwnershipSchema = Type.Integer({ minimum: 0, maximum: 100, description: 'Percentage of ownership, 0 to 100' });

export const BeneficialOwnerSchema = Type.Object(
  {
    id: Type.String({ examples: ['BeneficialOwner:019542f5-b3e7-7d02-8000-000000000001'] }),
    customerId: Type.String({ description: 'The business customer the owner belongs to' }),
    roles: Type.Array(Type.Enum([...OWNER_ROLES])),
    ownershipPercentage: OwnershipSchema,
    personalInfo: PersonalInfoSchema,
    kycStatus: Type.Enum([...KYC_STATUSES]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { description: 'A natural person associated with a business customer' },
);

export const CreateOwnerBody = Type.Object(
  { customerId: Type.String({ minLength: 1, maxLength: 128 }), roles: RolesSchema, ownershipPercentage: OwnershipSchema, personalInfo: PersonalInfoSchema },
  { additionalProperties: false },
);

export const PatchOwnerBody = Type.Object(
  { roles: Type.Optional(RolesSchema), ownershipPercentage: Type.Optional(OwnershipSchema), personalInfo: Type.Optional(PersonalInfoPatchSchema) },
  { additionalProperties: false, minProperties: 1 },
);

export const ListOwnersQuery = Type.Object(
  { customerId: Type.String({ minLength: 1, maxLength: 128, description: 'The business customer identifier' }), ...PageQuerySchema },
  { additionalProperties: false },
);
