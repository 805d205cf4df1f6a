-- q4: average price per category. The winning (highest in-time) bid of every auction, averaged
-- per auction category; updated as auctions get new bids.
-- result: upsert
CREATE TABLE ${sink} (category BIGINT, `final` BIGINT, PRIMARY KEY (category) NOT ENFORCED)
  WITH ('write.upsert.enabled' = 'true', ${with});
INSERT INTO ${sink}
SELECT Q.category, AVG(Q.`final`)
FROM (
  SELECT MAX(B.price) AS `final`, A.category
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
  GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
