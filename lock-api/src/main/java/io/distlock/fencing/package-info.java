/**
 * The resource side of fencing: guards that accept a write only if its fencing token is not older
 * than the newest one they have accepted, in memory or in a database table checked in the caller's
 * transaction.
 */
package io.distlock.fencing;
