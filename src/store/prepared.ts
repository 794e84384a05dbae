import type { CompiledQuery } from 'kysely';
import type { Db, Store } from './store.js';

/**
 * A read query built once with the query builder and compiled once; each call only binds its
 * arguments and runs through {@link Store.read}. For hot paths, where building and compiling a
 * query costs more than running it.
 */
export class PreparedRead<A extends Record<string, unknown>, R> {
  private readonly template: CompiledQuery<R>;
  private readonly slots: (keyof A)[];

  /**
   * `sentinel` holds a distinct placeholder value per argument, so each bind parameter of the
   * compiled text can be traced back to the argument it takes.
   */
  constructor(private readonly store: Store, build: (db: Db, args: A) => CompiledQuery<R>, sentinel: A) {
    this.template = build(store.db, sentinel);
    const keys = Object.keys(sentinel) as (keyof A)[];
    this.slots = this.template.parameters.map((value) => {
      const slot = keys.find((k) => sentinel[k] === value);
      if (slot === undefined) throw new Error(`prepared query: parameter ${String(value)} is not one of the sentinel's values`);
      return slot;
    });
  }

  run(args: A): Promise<R[]> {
    return this.store.read({ ...this.template, parameters: this.slots.map((k) => args[k]) });
  }

  async first(args: A): Promise<R | undefined> {
    return (await this.run(args))[0];
  }
}
