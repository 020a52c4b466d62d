import { DBOS } from '@dbos-inc/dbos-sdk';

/**
 * Topic the baseline workflow waits on.
 *
 * @example
 * await DBOS.send(workflowId, 'go', RECV_BASELINE_TOPIC);
 */
export const RECV_BASELINE_TOPIC = 'wake';

/**
 * The send→recv baseline: a DBOS workflow that does nothing but wait in `DBOS.recv` for one message. Import
 * this module before `DBOS.launch()` so its decorator is registered.
 *
 * @example
 * const handle = await DBOS.startWorkflow(RecvBaselineWorkflows.run, { workflowID: 'recv-1' })(60);
 * await DBOS.send('recv-1', 'go', RECV_BASELINE_TOPIC);
 * await handle.getResult(); // true
 */
export class RecvBaselineWorkflows {
  /**
   * Wait up to `timeoutSeconds` for one message; true when it came.
   *
   * @example
   * await DBOS.startWorkflow(RecvBaselineWorkflows.run)(60);
   */
  @DBOS.workflow({ name: 'bench.recvOnce' })
  static async run(timeoutSeconds: number): Promise<boolean> {
    return (await DBOS.recv<string>(RECV_BASELINE_TOPIC, timeoutSeconds)) !== null;
  }
}
