import { describe, expect, it } from 'vitest';
import { withIdleTransactionTimeout } from '../../../src/store/postgres/session-timeouts.js';

describe('withIdleTransactionTimeout', () => {
  it('adds the libpq option DBOS recognises', () => {
    const url = new URL(withIdleTransactionTimeout('postgres://u:p@h:5432/db'));
    expect(url.searchParams.get('options')).toBe('-c idle_in_transaction_session_timeout=60000');
    expect(url.username).toBe('u');
  });
  it('appends to existing options and keeps a URL that sets it already', () => {
    expect(new URL(withIdleTransactionTimeout('postgres://h/db?options=-c%20search_path%3Dapp', 5000)).searchParams.get('options')).toBe(
      '-c search_path=app -c idle_in_transaction_session_timeout=5000',
    );
    const set = 'postgres://h/db?options=-c%20idle_in_transaction_session_timeout%3D1000';
    expect(withIdleTransactionTimeout(set)).toBe(set);
  });
});
