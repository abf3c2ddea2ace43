/** An HTTP header's name: a token (RFC 9110, section 5.6.2). */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
