/** The End User Terms a platform shows its customers: the version they accept and where it is hosted. */
export interface EndUserTerms {
  version: string;
  url: string;
}

/** The sandbox serves one fixed version: the one Grid publishes as current at interface 2025-10-13. */
export const CURRENT_END_USER_TERMS: EndUserTerms = Object.freeze({
  version: 'V1',
  url: 'https://www.lightspark.com/legal/grid/enduserterms',
});
