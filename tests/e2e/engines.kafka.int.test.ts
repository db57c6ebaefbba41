import { enginesSuite } from './engines-suite.js'

enginesSuite('kafka')
