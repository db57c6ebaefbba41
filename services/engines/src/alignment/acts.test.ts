/** A rule's forbidden act: its verbs, the kinds they name, and the pieces the sentence model compares. */
import { describe, expect, it } from 'vitest'
import { actParts, actVerbs, propositionOf, ruleActs } from './acts.js'

describe('forbidden acts', () => {
  it('reads kinds from the verbs, not from words of the object', () => {
    expect([...ruleActs('tell a candidate that they will be invited to interview')]).not.toContain('solicit')
    expect([...ruleActs('quote financing rates before a credit application')]).not.toContain('transact')
    expect([...ruleActs('say or suggest that the other driver was responsible')]).toContain('assert')
    expect([...ruleActs('disparage other dealerships')]).toEqual(['disparage'])
    expect([...ruleActs('imply an APR')]).toEqual(['assert'])
    // A threat or a warning predicts what will happen.
    expect([...ruleActs('threaten residential disconnection during the winter')]).toEqual(['promise'])
    // A generic verb takes its kind from its object.
    expect([...ruleActs('give medical dosage advice')]).toContain('recommend')
    expect(ruleActs('negotiate pay outside the band').size).toBe(0) // left to the sentence model
  })

  it('reads what a rule forbids saying, and telling someone that as no advice', () => {
    expect(propositionOf('tell customers that discoloured or smelly water is safe to drink')).toBe('discoloured or smelly water is safe to drink')
    expect(propositionOf('tell them to leave the building')).toBeNull()
    expect(propositionOf('promise delivery dates that the tracking page does not show')).toBeNull()
    expect(propositionOf('say that money will be returned')).toBe('money will be returned')
    expect(propositionOf('advise customers whether to buy the collision damage waiver')).toBeNull()
    expect([...ruleActs('tell customers that discoloured water is safe to drink')]).not.toContain('recommend')
    expect([...ruleActs('tell them to leave the building')]).toContain('recommend')
  })

  it('names its verbs, coordinated ones included', () => {
    expect(actVerbs('quote, estimate or imply an APR')).toEqual(['quote', 'estimate', 'imply'])
  })

  it('cuts an act into coordinated verb phrases and enumeration items, the act first', () => {
    const parts = actParts('negotiate, promise or suggest pay outside the posted band')
    expect(parts[0]).toBe('negotiate, promise or suggest pay outside the posted band')
    expect(parts).toContain('promise pay outside the posted band')
    expect(actParts('ask candidates about age, family or marital status, pregnancy')).toEqual([
      'ask candidates about age, family or marital status, pregnancy',
      'ask candidates about age',
      'ask candidates about family',
      'ask candidates about marital status',
      'ask candidates about pregnancy',
    ])
    // A participle after "or" describes the object; one noun's adjectives are no list.
    expect(actParts('promise an earlier or guaranteed time')).toEqual(['promise an earlier or guaranteed time'])
  })
})
