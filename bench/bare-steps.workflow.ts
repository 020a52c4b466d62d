import { DBOS } from '@dbos-inc/dbos-sdk';

/**
 * The baseline: a DBOS workflow of trivial steps, each doing nothing but being checkpointed. Import this
 * module before `DBOS.launch()` so its decorators are registered.
 *
 * @example
 * const handle = await DBOS.startWorkflow(BareStepWorkflows.run, { workflowID: 'bare-1' })(200);
 * await handle.getResult(); // 200 checkpointed steps
 */
export class BareStepWorkflows {
  /**
   * A step that returns its argument.
   *
   * @example
   * await BareStepWorkflows.bareStep(1); // 1
   */
  @DBOS.step({ name: 'BareStep' })
  static async bareStep(index: number): Promise<number> {
    return index;
  }

  /**
   * Run `count` bare steps in sequence.
   *
   * @example
   * await DBOS.startWorkflow(BareStepWorkflows.run)(10);
   */
  @DBOS.workflow({ name: 'bench.bareSteps' })
  static async run(count: number): Promise<number> {
    let completed = 0;
    for (let index = 1; index <= count; index += 1) completed += (await BareStepWorkflows.bareStep(index)) > 0 ? 1 : 0;
    return completed;
  }
}
