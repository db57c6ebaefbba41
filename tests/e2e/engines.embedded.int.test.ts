import { enginesSuite } from './engines-suite.js'

enginesSuite('embedded')
