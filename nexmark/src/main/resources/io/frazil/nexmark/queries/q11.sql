-- q11: user sessions. Bids per bidder per session (sessions end after 10 seconds without a bid).
-- result: append
CREATE TABLE ${sink} (bidder BIGINT, bid_count BIGINT, starttime TIMESTAMP(3), endtime TIMESTAMP(3))
  WITH (${with});
INSERT INTO ${sink}
SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TABLE(SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(`dateTime`), INTERVAL '10' SECOND))
GROUP BY bidder, window_start, window_end;
