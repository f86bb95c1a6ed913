/** Spring Integration's lock registry over any distlock backend. */
package io.distlock.integration;
