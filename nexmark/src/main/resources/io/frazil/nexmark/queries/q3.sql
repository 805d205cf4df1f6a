-- q3: local item suggestion. Sellers in Oregon, Idaho or California with an auction in category 10.
-- result: append
CREATE TABLE ${sink} (name STRING, city STRING, state STRING, id BIGINT) WITH (${with});
INSERT INTO ${sink}
SELECT P.name, P.city, P.state, A.id
FROM auction AS A INNER JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA');
