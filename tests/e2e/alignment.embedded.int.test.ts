import { alignmentSuite } from './alignment-suite.js'

alignmentSuite('embedded')
