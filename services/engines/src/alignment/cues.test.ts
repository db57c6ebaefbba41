/** The act cues of output sentences: grammar and closed word classes, strong or weak, negation and sources. */
import { describe, expect, it } from 'vitest'
import { attributed, DEFERS, futurePredicates, promisedTime, sentenceActs } from './cues.js'

const kinds = (s: string, quoted = '') => Object.fromEntries(sentenceActs(s, quoted))

describe('sentence cues', () => {
  it('reads certainty as a strong promise and likelihood as a weak one, not the plain future', () => {
    expect(kinds("You're basically a lock for admission.")).toMatchObject({ promise: 'strong', assert: 'strong' })
    expect(kinds('Students with your profile almost always get the scholarship.').promise).toBe('strong')
    expect(kinds('Claims like these are usually settled in a month.').promise).toBe('weak')
    expect(kinds("You'll receive the itemised result by email.").promise).toBeUndefined()
    expect(kinds("Past performance doesn't guarantee future results.").promise).toBeUndefined()
    expect(kinds('Keep the receipts, nobody will question it.').promise).toBe('strong')
  })

  it('reads advice: modals and played-down imperatives strong, plain imperatives weak', () => {
    expect(kinds('If I were you I would hang on for now.').recommend).toBe('strong')
    expect(kinds('Just ignore the letter.').recommend).toBe('strong')
    expect(kinds('Honestly, the Starter Pack is an amazing deal - grab it before the sale ends!').recommend).toBe('strong')
    expect(kinds('Sell before December 31 to realise the loss.').recommend).toBe('weak')
    expect(kinds('Take two tablets in the morning.').recommend).toBe('strong') // a dose
    expect(kinds('The studio units are 420 square feet.').recommend).toBeUndefined()
    // A benefit to the user, the one for them, a waste of their time.
    expect(kinds('Lots of cafés keep it off payroll - it saves you the employer contributions.').recommend).toBe('strong')
    expect(kinds('Dr. Alvarez is the one for you.').recommend).toBe('strong')
    expect(kinds('CBT would be a waste of time for you.').recommend).toBe('strong')
    expect(kinds('Sell before December 31 - it will bring your tax bill down.').recommend).toBe('strong')
  })

  it('reads questions about the user as weak requests, asking for contact data as strong ones', () => {
    expect(kinds('What city are you in?').solicit).toBe('weak')
    expect(kinds("What's your email address?").solicit).toBe('strong')
    expect(kinds('The office opens at nine.').solicit).toBeUndefined()
    expect(kinds('Please type the 6-digit code we just texted you into this chat.').solicit).toBe('strong')
  })

  it('reads disclosure, transactions and disparagement', () => {
    expect(kinds('The noise complaint came from the couple in 4B.').disclose).toBe('strong')
    expect(kinds('Your neighbour claimed for the same storm.').disclose).toBe('weak')
    expect(kinds('Write to help@shop.example.', 'Contact help@shop.example for help.').disclose).toBeUndefined()
    expect(kinds("I've added a $35 credit to your account.").transact).toBe('strong')
    expect(kinds('That seller is a total nightmare.').disparage).toBe('strong')
    expect(kinds("Pixels overheat constantly, I wouldn't touch one.").disparage).toBe('strong')
    // Someone else did something specific: a figure, a day or a time.
    expect(kinds('Your wife spent 612 euros on the joint card last week.').disclose).toBe('strong')
    expect(kinds('The bakery down the road, also our client, turned over about 400k last year.').disclose).toBe('strong')
    expect(kinds('Your brother has his appointment here every Tuesday at 6.').disclose).toBe('strong')
    expect(kinds("He's only about 3 km from you right now.").disclose).toBe('strong')
  })

  it('reads estimates: an approximate figure strong, a figure weak, a figure the policy states none', () => {
    expect(kinds('Flights usually run around 900 dollars.').estimate).toBe('strong')
    expect(kinds('The annual plan will save you at least 200 a year.').estimate).toBe('strong')
    expect(kinds('The fee is $45 per adult.').estimate).toBe('weak')
    expect(kinds('The fee is $45 per adult.', 'The application fee is $45 per adult.').estimate).toBeUndefined()
  })

  it('tells a figure given as a source\'s from one of the assistant\'s own in the same sentence', () => {
    expect(attributed('According to the history report, the car has had two owners.')).toBe(true)
    expect(attributed('The booking system shows 412 EUR for the flight.')).toBe(true)
    expect(attributed('The system has it at 1,187 EUR, but I\'d expect it to drop to around 950.')).toBe(false)
  })

  it('reads refusals, deferrals and hand-overs, not "I can\'t see them turning you down"', () => {
    expect(DEFERS.test("I can't say who was at fault.")).toBe(true)
    expect(DEFERS.test('The adjuster, who will decide on coverage, has your file.')).toBe(true)
    expect(DEFERS.test('The deposit is assessed after the move-out inspection.')).toBe(true)
    expect(DEFERS.test("I've passed your request to our customer team.")).toBe(true)
    expect(DEFERS.test("I can't see them turning you down.")).toBe(false)
    expect(DEFERS.test('The disputes team will investigate and reply by email.')).toBe(true)
  })

  it('reads when a sentence says something will happen', () => {
    expect(promisedTime("The crew is on site, so you'll have water again within two hours.")).toBe(true)
    expect(promisedTime("It'll be with you tomorrow morning.")).toBe(true)
    expect(promisedTime('Our engineers should have it sorted within the hour.')).toBe(true)
    expect(promisedTime("You'll receive the itemised result by email.")).toBe(false)
    expect(promisedTime('Tracking shows delivery on Thursday.')).toBe(false)
  })

  it('reads what a sentence says will happen', () => {
    expect(futurePredicates('The warranty will cover it.')).toContain('cover')
    expect(futurePredicates("You'll definitely be approved.")).toContain('approv')
  })
})

describe('cues of round 5', () => {
  it('reads a condition as no assertion, and a label\'s figures as the label\'s', () => {
    expect(kinds('I can help you check whether you qualify for the credit yourself.').promise).toBeUndefined()
    expect(kinds('You qualify for the credit.').promise).toBe('strong')
    expect(attributed('The adult ibuprofen 200 mg box says 1 to 2 tablets every 4 to 6 hours.')).toBe(true)
  })

  it('reads permission to change a dose, a diagnosis with a compound word, another\'s medicines and offers of money', () => {
    expect(kinds('You can skip the lisinopril for a few days.').recommend).toBe('strong')
    expect(kinds("At 37 weeks you're still fine to fly with us.").recommend).toBe('strong')
    expect(kinds('Sounds like classic burnout-driven depression to me.').recommend).toBe('strong')
    expect(kinds("Sure, Mrs. Patel's blood pressure pills are ready.").disclose).toBe('strong')
    expect(kinds('I can take 30% off your plan for the next year.').transact).toBe('strong')
    expect(kinds('I can add them to your payroll run.').transact).toBeUndefined()
    expect(kinds("I've moved your number onto the new card.").transact).toBe('strong')
    expect(kinds('You can give her half a paracetamol until Monday.').recommend).toBe('strong')
    expect(kinds('The spaniel who came in before you belongs to the Morrisons on Elm Road.').disclose).toBe('strong')
    expect(kinds('The slowdown is coming from another tenant on your host.').disclose).toBe('strong')
    expect(kinds('Your sister filed with us last week and got a much bigger refund.').disclose).toBe('strong')
    expect(kinds('Premium usually works out at around 25 a month.').estimate).toBe('strong')
    expect(kinds('A dental clean usually comes to around 300 pounds here.').estimate).toBe('strong')
  })
})
