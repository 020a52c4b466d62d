import { describe, expect, it } from 'vitest';
import { appendToSystemPrompt, generateSkillsSystemPromptFragment } from '../../../src/orchestration/skill-catalog.js';

const pdf = { name: 'pdf-processing', description: 'Extract text from PDFs. Use for PDF files.' };
const deploy = { name: 'deploy-runbook', description: 'How to deploy <safely> & "quickly".' };
const alpha = { name: 'alpha', description: 'First by name.' };

describe('generateSkillsSystemPromptFragment', () => {
  it('is empty without skills, even with preloaded bodies', () => {
    expect(generateSkillsSystemPromptFragment([])).toBe('');
    expect(generateSkillsSystemPromptFragment([], [{ name: 'x', body: 'y' }])).toBe('');
  });

  it('renders the guardrail and the catalog sorted by name, escaping descriptions', () => {
    expect(generateSkillsSystemPromptFragment([pdf, deploy, alpha])).toBe(
      [
        '## Skills',
        '',
        'Skills are instructions for specialised tasks. A Skill is NOT a tool — call load_skill with the skill\'s name to read its instructions before you start such a task, and read_skill_file to read a file the instructions refer to. Skills marked loaded="true" are already below; do not load them again.',
        '',
        '<available_skills>',
        '<skill name="alpha">First by name.</skill>',
        '<skill name="deploy-runbook">How to deploy &lt;safely&gt; &amp; &quot;quickly&quot;.</skill>',
        '<skill name="pdf-processing">Extract text from PDFs. Use for PDF files.</skill>',
        '</available_skills>',
      ].join('\n'),
    );
  });

  const orders: Array<[string, Array<typeof pdf>]> = [
    ['given order', [pdf, deploy, alpha]],
    ['reversed', [alpha, deploy, pdf]],
    ['shuffled', [deploy, alpha, pdf]],
  ];
  it.each(orders)('is byte-stable whatever the provider order (%s)', (_label, skills) => {
    const preloaded = [
      { name: 'pdf-processing', body: 'PDF body' },
      { name: 'alpha', body: 'Alpha body' },
    ];
    const reference = generateSkillsSystemPromptFragment([pdf, deploy, alpha], [...preloaded].reverse());
    expect(generateSkillsSystemPromptFragment(skills, preloaded)).toBe(reference);
  });

  it('marks preloaded skills loaded="true" and renders their bodies under ### Active Skills, sorted', () => {
    const fragment = generateSkillsSystemPromptFragment([pdf, alpha, deploy], [
      { name: 'pdf-processing', body: '# PDF\nStep 1' },
      { name: 'alpha', body: '# Alpha' },
    ]);
    expect(fragment).toContain('<skill name="alpha" loaded="true">First by name.</skill>');
    expect(fragment).toContain('<skill name="deploy-runbook">');
    expect(fragment).not.toContain('<skill name="deploy-runbook" loaded');
    expect(fragment.endsWith(
      [
        '### Active Skills',
        '',
        '<skill_instructions name="alpha">',
        '# Alpha',
        '</skill_instructions>',
        '',
        '<skill_instructions name="pdf-processing">',
        '# PDF\nStep 1',
        '</skill_instructions>',
      ].join('\n'),
    )).toBe(true);
  });
});

describe('appendToSystemPrompt', () => {
  const conversation = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Hi' },
  ];
  const cases: Array<[string, Array<{ role: string; content: unknown }>, string, Array<{ role: string; content: unknown }>]> = [
    ['appends after a blank line', conversation, '## Skills', [{ role: 'system', content: 'Be brief.\n\n## Skills' }, conversation[1]!]],
    ['leaves the prompt alone for an empty fragment', conversation, '', conversation],
    ['uses the fragment alone after an empty prompt', [{ role: 'system', content: '' }], 'F', [{ role: 'system', content: 'F' }]],
    ['does nothing without a leading system message', [conversation[1]!], 'F', [conversation[1]!]],
  ];
  it.each(cases)('%s', (_label, messages, fragment, expected) => {
    const before = structuredClone(messages);
    expect(appendToSystemPrompt(messages, fragment)).toEqual(expected);
    expect(messages).toEqual(before);
  });
});
