export { startClickhouseHttp, type ClickhouseHttp } from './service.js'
