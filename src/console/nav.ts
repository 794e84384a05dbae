/** The console's navigation, in order: a new page is one entry here and one module in pages/index.ts. */
export const NAV: { href: string; label: string }[] = [
  { href: '/console/customers', label: 'Customers' },
  { href: '/console/cards', label: 'Cards' },
  { href: '/console/transactions', label: 'Transactions' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/requests', label: 'Requests' },
  { href: '/console/settings', label: 'Tokens and configuration' },
];
